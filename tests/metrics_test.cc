// Metrics: the Prometheus text exposition (HELP, TYPE, contiguous families, exact whole numbers,
// escaped labels, cumulative histogram buckets), the catalog's shape, and that the catalog, the
// code and docs/METRICS.md name the same families.
#include "base/metrics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "base/metric_catalog.h"
#include "support/test_env.h"

namespace ufmr {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// The family a sample line belongs to (histogram suffixes removed when `histograms` has it).
std::string FamilyOfSample(const std::string& line, const std::set<std::string>& histograms) {
  std::string name = line.substr(0, line.find_first_of("{ "));
  for (const char* suffix : {"_bucket", "_sum", "_count"}) {
    std::string s(suffix);
    if (name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0 &&
        histograms.count(name.substr(0, name.size() - s.size()))) {
      return name.substr(0, name.size() - s.size());
    }
  }
  return name;
}

// Checks the exposition's grammar: comment lines are HELP/TYPE, each family's TYPE comes once and
// before its samples, a family's samples are contiguous, and sample lines are `name{labels} value`.
void ExpectValidExposition(const std::string& text) {
  static const std::regex kSample(
      R"(^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*",?)*\})? )"
      R"((-?[0-9]+(\.[0-9]+)?(e[-+]?[0-9]+)?|NaN|[-+]Inf)$)");
  std::set<std::string> typed, histograms, finished;
  std::string current;
  for (const auto& line : Lines(text)) {
    if (line.rfind("# HELP ", 0) == 0) continue;
    if (line.rfind("# TYPE ", 0) == 0) {
      std::istringstream in(line.substr(7));
      std::string name, type;
      in >> name >> type;
      EXPECT_TRUE(typed.insert(name).second) << "TYPE twice: " << name;
      EXPECT_TRUE(type == "counter" || type == "gauge" || type == "histogram") << line;
      if (type == "histogram") histograms.insert(name);
      if (!current.empty()) finished.insert(current);
      current = name;
      continue;
    }
    EXPECT_TRUE(std::regex_match(line, kSample)) << "not a sample line: " << line;
    std::string family = FamilyOfSample(line, histograms);
    EXPECT_EQ(family, current) << "sample outside its family's block: " << line;
    EXPECT_FALSE(finished.count(family)) << "family split: " << line;
  }
}

TEST(MetricsTest, RendersHelpTypeAndExactWholeNumbers) {
  Metrics m;
  m.Add("ufmr_tickets_opened_total", 1234567);
  m.Set("ufmr_rules_reload_duration_seconds", 0.25);
  m.Add("ufmr_findings_total{rule=\"link_down\"}");
  m.Add("ufmr_findings_total{rule=\"link_down\"}", 2);
  const std::string text = m.Render();
  EXPECT_NE(text.find("# HELP ufmr_tickets_opened_total Tickets filed.\n"
                      "# TYPE ufmr_tickets_opened_total counter\n"
                      "ufmr_tickets_opened_total 1234567\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("# TYPE ufmr_rules_reload_duration_seconds gauge\n"
                      "ufmr_rules_reload_duration_seconds 0.25\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\nufmr_findings_total{rule=\"link_down\"} 3\n"), std::string::npos);
  EXPECT_EQ(m.Get("ufmr_findings_total{rule=\"link_down\"}"), 3);
  EXPECT_EQ(m.Get("ufmr_findings_total{rule=\"other\"}"), 0);
  ExpectValidExposition(text);
}

TEST(MetricsTest, CatalogFamiliesWithoutLabelsStartAtZero) {
  Metrics m;
  const std::string text = m.Render();
  EXPECT_NE(text.find("\nufmr_pass_failures_total 0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nufmr_leader 0\n"), std::string::npos);
  // Labelled families show HELP and TYPE only, until their first update.
  EXPECT_NE(text.find("# TYPE ufmr_port_actions_total counter\n"), std::string::npos);
  EXPECT_EQ(text.find("ufmr_port_actions_total{"), std::string::npos);
  ExpectValidExposition(text);
}

TEST(MetricsTest, MetricNameEscapesLabelValues) {
  EXPECT_EQ(MetricName("f", {}), "f");
  EXPECT_EQ(MetricName("f", {{"a", "x"}, {"b", "y"}}), "f{a=\"x\",b=\"y\"}");
  EXPECT_EQ(MetricName("f", {{"rule", "a\"b\\c\nd"}}), "f{rule=\"a\\\"b\\\\c\\nd\"}");
  Metrics m;
  m.Add(MetricName("ufmr_findings_total", {{"rule", "we\"ird}\\rule\n"}}));
  EXPECT_EQ(m.Get(MetricName("ufmr_findings_total", {{"rule", "we\"ird}\\rule\n"}})), 1);
  ExpectValidExposition(m.Render());
}

TEST(MetricsTest, FamiliesStayTogetherWhateverTheirNamesSortAs) {
  Metrics m;
  // "ufmr_tickets{" sorts after "ufmr_tickets_opened_total" as a plain string.
  m.Set(MetricName("ufmr_tickets", {{"state", "open"}}), 2);
  m.Add("ufmr_tickets_opened_total");
  m.Set(MetricName("ufmr_tickets", {{"state", "closed"}}), 7);
  const std::string text = m.Render();
  EXPECT_NE(text.find("# TYPE ufmr_tickets gauge\n"
                      "ufmr_tickets{state=\"closed\"} 7\n"
                      "ufmr_tickets{state=\"open\"} 2\n"),
            std::string::npos)
      << text;
  ExpectValidExposition(text);
}

TEST(MetricsTest, HistogramBucketsAreCumulativeWithSumAndCount) {
  Metrics m;
  const std::string name = MetricName("ufmr_ufm_request_duration_seconds", {{"endpoint", "ports"}});
  for (double v : {0.004, 0.005, 0.02, 0.3, 45.0}) m.Observe(name, v);
  auto h = m.GetHistogram(name);
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->count, 5u);
  EXPECT_DOUBLE_EQ(h->sum, 0.004 + 0.005 + 0.02 + 0.3 + 45.0);
  const std::string text = m.Render();
  const std::string p = "ufmr_ufm_request_duration_seconds_bucket{endpoint=\"ports\",le=";
  // le is inclusive: 0.005 falls in the 0.005 bucket.
  EXPECT_NE(text.find(p + "\"0.005\"} 2\n"), std::string::npos) << text;
  EXPECT_NE(text.find(p + "\"0.01\"} 2\n"), std::string::npos);
  EXPECT_NE(text.find(p + "\"0.025\"} 3\n"), std::string::npos);
  EXPECT_NE(text.find(p + "\"0.5\"} 4\n"), std::string::npos);
  EXPECT_NE(text.find(p + "\"30\"} 4\n"), std::string::npos);
  EXPECT_NE(text.find(p + "\"+Inf\"} 5\n"), std::string::npos);
  EXPECT_NE(text.find("ufmr_ufm_request_duration_seconds_count{endpoint=\"ports\"} 5\n"),
            std::string::npos);
  EXPECT_NE(text.find("ufmr_ufm_request_duration_seconds_sum{endpoint=\"ports\"} 45.329\n"),
            std::string::npos);
  // Without labels, the bucket's only label is le.
  m.Observe("ufmr_pass_duration_seconds", 0.2);
  EXPECT_NE(m.Render().find("ufmr_pass_duration_seconds_bucket{le=\"0.25\"} 1\n"),
            std::string::npos);
  EXPECT_FALSE(m.GetHistogram("ufmr_pass_duration_seconds{x=\"y\"}").has_value());
  ExpectValidExposition(m.Render());
}

TEST(MetricsTest, ConcurrentUpdatesAreAllCounted) {
  Metrics m;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 10000; ++i) {
        m.Add("ufmr_action_retries_total");
        m.Observe("ufmr_pass_duration_seconds", 0.01);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(m.Get("ufmr_action_retries_total"), 40000);
  EXPECT_EQ(m.GetHistogram("ufmr_pass_duration_seconds")->count, 40000u);
}

TEST(MetricCatalogTest, NamesTypesAndBucketsAreSound) {
  std::set<std::string> names;
  static const std::regex kName("^ufmr_[a-z0-9_]+$");
  for (const auto& info : MetricCatalog()) {
    EXPECT_TRUE(names.insert(info.name).second) << "listed twice: " << info.name;
    EXPECT_TRUE(std::regex_match(info.name, kName)) << info.name;
    EXPECT_FALSE(info.help.empty()) << info.name;
    bool total = info.name.size() > 6 && info.name.substr(info.name.size() - 6) == "_total";
    EXPECT_EQ(total, info.type == "counter") << info.name << " is a " << info.type;
    if (info.type == "histogram") {
      ASSERT_FALSE(info.buckets.empty()) << info.name;
      EXPECT_TRUE(std::is_sorted(info.buckets.begin(), info.buckets.end())) << info.name;
    } else {
      EXPECT_TRUE(info.type == "counter" || info.type == "gauge") << info.name;
      EXPECT_TRUE(info.buckets.empty()) << info.name;
    }
  }
}

// Every `"ufmr_...` name the code hands to Metrics is a catalog family (a typo would otherwise
// export an undocumented family nobody alerts on).
TEST(MetricCatalogTest, TheCodeUsesOnlyCatalogFamilies) {
  std::set<std::string> catalog;
  for (const auto& info : MetricCatalog()) catalog.insert(info.name);
  static const std::regex kUse("\"(ufmr_[a-z0-9_]+)");
  static const std::regex kMetricsCall(R"((metrics|Metric|Observe)\w*[.(>-])");
  int uses = 0;
  std::set<std::string> used;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator(testing::SourceDir() + "/src")) {
    if (entry.path().extension() != ".cc") continue;
    auto lines = Lines(ReadFile(entry.path().string()));
    for (size_t i = 0; i < lines.size(); ++i) {
      // A call may wrap: the name can be on the line after `metrics_.Add(`.
      std::string context = lines[i] + (i > 0 ? lines[i - 1] : "");
      if (!std::regex_search(context, kMetricsCall)) continue;
      for (std::sregex_iterator m(lines[i].begin(), lines[i].end(), kUse), end; m != end; ++m) {
        ++uses;
        used.insert((*m)[1]);
        EXPECT_TRUE(catalog.count((*m)[1])) << entry.path().filename().string() << ":" << i + 1
                                            << ": " << (*m)[1] << " is not in metric_catalog.cc";
      }
    }
  }
  EXPECT_GT(uses, 40) << "the scan found too few uses to be looking at the right code";
  // And the catalog lists nothing the code never sets (families filled in via a variable name
  // would show up here: keep names literal).
  for (const auto& name : catalog) {
    EXPECT_TRUE(used.count(name)) << name << " is in the catalog but the code never updates it";
  }
}

// docs/METRICS.md has a table row for each family with its type and labels, and no other.
TEST(MetricCatalogTest, DocsListEveryFamilyWithItsTypeAndLabels) {
  const std::string doc = ReadFile(testing::SourceDir() + "/docs/METRICS.md");
  ASSERT_FALSE(doc.empty());
  static const std::regex kRow(R"(^\| `(ufmr_[a-z0-9_]+)` \| (\w+) \| ([^|]*) \|)");
  std::map<std::string, std::pair<std::string, std::string>> documented;
  for (const auto& line : Lines(doc)) {
    std::smatch m;
    if (!std::regex_search(line, m, kRow)) continue;
    std::string labels = m[3];
    labels.erase(
        std::remove_if(labels.begin(), labels.end(), [](char c) { return c == '`' || c == ' '; }),
        labels.end());
    EXPECT_TRUE(documented.emplace(m[1], std::make_pair(std::string(m[2]), labels)).second)
        << "documented twice: " << m[1];
  }
  for (const auto& info : MetricCatalog()) {
    auto it = documented.find(info.name);
    if (it == documented.end()) {
      ADD_FAILURE() << info.name << " is missing from docs/METRICS.md";
      continue;
    }
    EXPECT_EQ(it->second.first, info.type) << info.name;
    EXPECT_EQ(it->second.second, info.labels) << info.name;
    documented.erase(it);
  }
  for (const auto& [name, rest] : documented) {
    ADD_FAILURE() << "docs/METRICS.md documents " << name << ", which the catalog does not have";
  }
  // Every "### " group of metrics lists at least one.
  std::string heading;
  int rows = 0;
  auto close = [&] {
    if (!heading.empty()) {
      EXPECT_GT(rows, 0) << "empty section in docs/METRICS.md: " << heading;
    }
  };
  for (const auto& line : Lines(doc)) {
    if (line.rfind("##", 0) == 0) {
      close();
      heading = line.rfind("### ", 0) == 0 ? line : "";
      rows = 0;
    } else if (std::regex_search(line, kRow)) {
      ++rows;
    }
  }
  close();
}

}  // namespace
}  // namespace ufmr
