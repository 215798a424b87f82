// docs/CONFIG.md documents exactly the keys the config loader accepts (KnownConfigKeys(), the
// table the loader's unknown-key check reads): every known key has a row in its section's table
// (`## section`, a table whose first column is `key`), and every row names a known key, once.
// Each documented default, written alone into a minimal config, loads and gives the same Config
// as leaving the key out (so the docs' defaults are config.h's). Keys outside the table are
// rejected in every section. The docs' own example sets every key and loads, and so do the
// shipped services/config.example.yaml and docker/config.yaml.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "config/config.h"
#include "support/test_env.h"

namespace ufmr {
namespace {

constexpr const char* kUfmUrl = "https://ufm.example:443";
constexpr const char* kDbUrl = "postgresql://ufmr@localhost/ufmr";

struct DocumentedKey {
  std::string path;          // dotted, as KnownConfigKeys() spells it
  std::string default_cell;  // the table's `default` cell, as written
  int line = 0;              // in docs/CONFIG.md
};

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t");
  size_t e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// The cells of a Markdown table row; "\|" inside a cell is not a separator.
std::vector<std::string> Cells(const std::string& row) {
  std::vector<std::string> cells;
  std::string cell;
  std::string body = Trim(row);
  if (!body.empty() && body.front() == '|') body.erase(0, 1);
  if (!body.empty() && body.back() == '|' && (body.size() < 2 || body[body.size() - 2] != '\\')) {
    body.pop_back();
  }
  for (size_t i = 0; i < body.size(); ++i) {
    if (body[i] == '\\' && i + 1 < body.size() && body[i + 1] == '|') {
      cell += '|';
      ++i;
    } else if (body[i] == '|') {
      cells.push_back(Trim(cell));
      cell.clear();
    } else {
      cell += body[i];
    }
  }
  cells.push_back(Trim(cell));
  return cells;
}

// The first `code` span of a cell, without the backticks; "" when there is none.
std::string FirstCode(const std::string& cell) {
  size_t a = cell.find('`');
  if (a == std::string::npos) return "";
  size_t b = cell.find('`', a + 1);
  if (b == std::string::npos) return "";
  return cell.substr(a + 1, b - a - 1);
}

struct Docs {
  std::vector<DocumentedKey> keys;
  std::vector<std::string> problems;  // rows the parser could not read
  std::string example_yaml;           // the fenced yaml block under "## Example"
};

Docs ReadDocs() {
  Docs docs;
  std::istringstream in(testing::ReadFile(testing::SourceDir() + "/docs/CONFIG.md"));
  std::string line, section;
  bool in_fence = false, in_example_yaml = false;
  std::vector<std::string> header;  // of the table being read; empty outside a table
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.rfind("```", 0) == 0) {
      in_example_yaml = !in_fence && section == "Example" && line.rfind("```yaml", 0) == 0;
      in_fence = !in_fence;
      header.clear();
      continue;
    }
    if (in_fence) {
      if (in_example_yaml) docs.example_yaml += line + "\n";
      continue;
    }
    if (line.rfind("## ", 0) == 0) {
      section = Trim(line.substr(3));
      header.clear();
      continue;
    }
    if (Trim(line).rfind('|', 0) != 0) {
      header.clear();
      continue;
    }
    std::vector<std::string> cells = Cells(line);
    if (header.empty()) {
      header = cells;
      continue;
    }
    if (cells[0].find_first_not_of("-: ") == std::string::npos) continue;  // | --- | --- |
    if (header[0] != "key") continue;  // the types table, the environment variables
    const std::string where = "docs/CONFIG.md:" + std::to_string(n) + ": ";
    if (cells.size() != header.size()) {
      docs.problems.push_back(where + "the row has " + std::to_string(cells.size()) +
                              " cells, its header " + std::to_string(header.size()));
      continue;
    }
    const std::string key = FirstCode(cells[0]);
    if (key.empty() || cells[0] != "`" + key + "`") {
      docs.problems.push_back(where + "the key cell is not one `key`: " + cells[0]);
      continue;
    }
    DocumentedKey k;
    // A top-level key is documented in a section of its own name (## fabric, `fabric`).
    k.path = key == section ? key : section + "." + key;
    k.line = n;
    for (size_t i = 0; i < header.size(); ++i) {
      if (header[i] == "default") k.default_cell = cells[i];
    }
    docs.keys.push_back(k);
  }
  return docs;
}

std::string Section(const std::string& path) {
  size_t dot = path.find('.');
  return dot == std::string::npos ? "" : path.substr(0, dot);
}

std::string Leaf(const std::string& path) {
  size_t dot = path.find('.');
  return dot == std::string::npos ? path : path.substr(dot + 1);
}

// The required keys, plus `line` ("key: value") in `section` ("": the top level).
std::string MinimalWith(const std::string& section, const std::string& line) {
  std::string ufm = std::string("ufm:\n  url: ") + kUfmUrl + "\n";
  std::string db = std::string("database:\n  url: ") + kDbUrl + "\n";
  if (section == "ufm") ufm += "  " + line + "\n";
  if (section == "database") db += "  " + line + "\n";
  std::string text = ufm + db;
  if (section.empty() && !line.empty()) text += line + "\n";
  if (!section.empty() && section != "ufm" && section != "database") {
    text += section + ":\n  " + line + "\n";
  }
  return text;
}

// A YAML single-quoted scalar: every type the loader reads takes its text from the scalar.
std::string Quoted(const std::string& value) {
  std::string out = "'";
  for (char ch : value) out += ch == '\'' ? std::string("''") : std::string(1, ch);
  return out + "'";
}

// The dotted paths a YAML config sets: top-level scalars and each section's keys.
std::set<std::string> KeysIn(const YAML::Node& root) {
  std::set<std::string> keys;
  for (const auto& kv : root) {
    const std::string name = kv.first.Scalar();
    if (kv.second.IsMap()) {
      for (const auto& inner : kv.second) keys.insert(name + "." + inner.first.Scalar());
    } else {
      keys.insert(name);
    }
  }
  return keys;
}

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (old_.empty()) {
      unsetenv(name_);
    } else {
      setenv(name_, old_.c_str(), 1);
    }
  }

 private:
  const char* name_;
  std::string old_;
};

TEST(ConfigDocsTest, TheDocsParse) {
  Docs docs = ReadDocs();
  for (const auto& p : docs.problems) ADD_FAILURE() << p;
  // Enough rows that a parser gone blind (a changed table layout) cannot pass the tests below.
  EXPECT_GE(docs.keys.size(), 60u);
  EXPECT_FALSE(docs.example_yaml.empty()) << "no ```yaml block under ## Example";
}

TEST(ConfigDocsTest, KnownKeysAreUnique) {
  std::set<std::string> seen;
  for (const auto& k : KnownConfigKeys()) EXPECT_TRUE(seen.insert(k).second) << k;
  EXPECT_TRUE(seen.count("fabric"));
  EXPECT_TRUE(seen.count("ufm.url"));
  EXPECT_TRUE(seen.count("ufm.utc_offset"));
  EXPECT_TRUE(seen.count("remediation.soak_s"));
}

TEST(ConfigDocsTest, EveryKnownKeyIsDocumented) {
  std::set<std::string> documented;
  for (const auto& k : ReadDocs().keys) documented.insert(k.path);
  for (const auto& k : KnownConfigKeys()) {
    EXPECT_TRUE(documented.count(k))
        << k << ": the loader accepts it but docs/CONFIG.md has no row for `" << Leaf(k)
        << "` under ## " << (Section(k).empty() ? k : Section(k));
  }
}

TEST(ConfigDocsTest, EveryDocumentedKeyIsKnownAndDocumentedOnce) {
  std::vector<std::string> known = KnownConfigKeys();
  std::set<std::string> known_set(known.begin(), known.end());
  std::map<std::string, int> first_line;
  for (const auto& k : ReadDocs().keys) {
    EXPECT_TRUE(known_set.count(k.path)) << "docs/CONFIG.md:" << k.line << ": documents " << k.path
                                         << ", which the loader does not accept";
    auto [it, inserted] = first_line.emplace(k.path, k.line);
    EXPECT_TRUE(inserted) << "docs/CONFIG.md:" << k.line << ": " << k.path
                          << " is documented again (first on line " << it->second << ")";
  }
}

TEST(ConfigDocsTest, EachDocumentedDefaultLoadsAsTheDefault) {
  auto base = LoadConfigText(MinimalWith("", ""), "minimal.yaml");
  ASSERT_TRUE(base.ok()) << base.status().message();
  int checked = 0;
  for (const auto& k : ReadDocs().keys) {
    SCOPED_TRACE("docs/CONFIG.md:" + std::to_string(k.line) + ": " + k.path);
    if (k.default_cell.find("required") != std::string::npos) {
      EXPECT_TRUE(k.path == "ufm.url" || k.path == "database.url") << "documented as required";
      continue;
    }
    std::string value;
    if (k.default_cell.rfind("(empty", 0) == 0) {
      value = "";
    } else {
      value = FirstCode(k.default_cell);
      if (value.empty()) {
        ADD_FAILURE() << "default cell not understood: " << k.default_cell;
        continue;
      }
    }
    const std::string text = MinimalWith(Section(k.path), Leaf(k.path) + ": " + Quoted(value));
    auto loaded = LoadConfigText(text, "with-default.yaml");
    if (!loaded.ok()) {
      ADD_FAILURE() << text << "\n" << loaded.status().message();
      continue;
    }
    EXPECT_TRUE(loaded.value() == base.value())
        << "the documented default " << value << " is not the loader's default\n"
        << text;
    ++checked;
  }
  EXPECT_GE(checked, 60);
}

TEST(ConfigDocsTest, KeysOutsideTheTableAreRejectedInEverySection) {
  std::set<std::string> sections{""};
  for (const auto& k : KnownConfigKeys()) sections.insert(Section(k));
  for (const auto& section : sections) {
    const std::string text = MinimalWith(section, "no_such_key: 1");
    auto loaded = LoadConfigText(text, "cfg.yaml");
    ASSERT_FALSE(loaded.ok()) << text;
    const std::string path = section.empty() ? "no_such_key" : section + ".no_such_key";
    EXPECT_NE(loaded.status().message().find(path + ": unknown key"), std::string::npos)
        << loaded.status().message();
    EXPECT_EQ(loaded.status().message().rfind("cfg.yaml:", 0), 0u) << loaded.status().message();
  }
  auto section = LoadConfigText(MinimalWith("", "surprise:\n  a: 1"), "cfg.yaml");
  ASSERT_FALSE(section.ok());
  EXPECT_NE(section.status().message().find("surprise: unknown key"), std::string::npos)
      << section.status().message();
}

TEST(ConfigDocsTest, TheDocsExampleSetsEveryKeyAndLoads) {
  const std::string yaml = ReadDocs().example_yaml;
  ASSERT_FALSE(yaml.empty());
  ScopedEnv password("UFM_PASSWORD", "example-password");         // its ufm.password_env
  ScopedEnv smtp("UFMR_SMTP_PASSWORD", "example-smtp-password");  // its email receiver's
  auto loaded = LoadConfigText(yaml, "docs/CONFIG.md#example");
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(loaded->fabric, "prod-a");
  std::set<std::string> in_example = KeysIn(YAML::Load(yaml));
  // ufm.password and ufm.token are shown as comments: their _env forms stand for them.
  for (const auto& k : KnownConfigKeys()) {
    if (k == "ufm.password" || k == "ufm.token" || k == "ufm.token_env") continue;
    EXPECT_TRUE(in_example.count(k)) << k << " is missing from the docs' example";
  }
}

TEST(ConfigDocsTest, ShippedConfigsLoad) {
  auto example = LoadConfigFile(testing::SourceDir() + "/services/config.example.yaml");
  ASSERT_TRUE(example.ok()) << example.status().message();
  EXPECT_EQ(example->fabric, "cluster-a");
  EXPECT_EQ(example->ufm.utc_offset_s, 0);
  // docker/config.yaml takes the database from the environment (compose.yaml sets it).
  ScopedEnv db("UFM_REMEDIATOR_DB_URL", "host=db dbname=ufmr user=ufmr");
  auto docker = LoadConfigFile(testing::SourceDir() + "/docker/config.yaml");
  ASSERT_TRUE(docker.ok()) << docker.status().message();
  EXPECT_EQ(docker->fabric, "demo");
  EXPECT_EQ(docker->log.format, "json");
}

}  // namespace
}  // namespace ufmr
