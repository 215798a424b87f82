// Covers src/offline/decision_writer.h: the lines written with a thread of the writer's own are
// the lines written inline, in order, for more decisions than the writer hands over at once.
#include "offline/decision_writer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

namespace ufmr {
namespace {

std::vector<Decision> Decisions(int n) {
  std::vector<Decision> out;
  for (int i = 0; i < n; ++i) {
    Decision d;
    d.kind = i % 3 == 0 ? DecisionKind::kSuppressed : DecisionKind::kTicket;
    d.time = TimePoint(std::chrono::seconds(1790000000 + i));
    d.rule = "rule_" + std::to_string(i % 7);
    d.entity = "port_" + std::to_string(i);
    d.port = i % 2 == 0 ? d.entity : "";
    d.reason = "reason \"" + std::to_string(i) + "\"\t";
    out.push_back(std::move(d));
  }
  return out;
}

std::string Expected(const std::vector<Decision>& ds, DecisionWriter::Format format) {
  std::string out;
  for (const auto& d : ds) DecisionWriter::AppendLine(d, format, &out);
  return out;
}

std::string Written(std::vector<Decision> ds, DecisionWriter::Format format, bool own_thread) {
  std::ostringstream out;
  DecisionWriter writer(out, format, own_thread);
  for (auto& d : ds) writer.Add(std::move(d));
  writer.Finish();
  writer.Finish();  // a second time writes nothing more
  return out.str();
}

TEST(DecisionWriterTest, WritesEveryDecisionInOrderWithOrWithoutAThread) {
  for (auto format : {DecisionWriter::Format::kJsonLines, DecisionWriter::Format::kText}) {
    for (int n : {0, 1, 511, 512, 513, 5000}) {
      SCOPED_TRACE(n);
      const std::vector<Decision> ds = Decisions(n);
      const std::string expected = Expected(ds, format);
      EXPECT_EQ(std::count(expected.begin(), expected.end(), '\n'), n);
      EXPECT_EQ(Written(ds, format, false), expected);
      EXPECT_EQ(Written(ds, format, true), expected);
    }
  }
}

TEST(DecisionWriterTest, LinesAreTheDecisionsJsonOrText) {
  const std::vector<Decision> ds = Decisions(2);
  std::string json;
  DecisionWriter::AppendLine(ds[0], DecisionWriter::Format::kJsonLines, &json);
  EXPECT_EQ(json, ds[0].ToJson().dump() + "\n");
  std::string text;
  DecisionWriter::AppendLine(ds[1], DecisionWriter::Format::kText, &text);
  EXPECT_EQ(text, "2026-09-21T14:13:21.000Z ticket rule_1 port_1: reason \"1\"\t\n");
}

TEST(DecisionWriterTest, DestroyingTheWriterWritesWhatWasLeft) {
  std::ostringstream out;
  {
    DecisionWriter writer(out, DecisionWriter::Format::kJsonLines, true);
    for (auto& d : Decisions(700)) writer.Add(std::move(d));
  }
  EXPECT_EQ(out.str(), Expected(Decisions(700), DecisionWriter::Format::kJsonLines));
}

// A stream that takes nothing: every write fails.
class RefusingBuffer : public std::streambuf {
 protected:
  std::streamsize xsputn(const char*, std::streamsize) override { return 0; }
  int_type overflow(int_type) override { return traits_type::eof(); }
};

TEST(DecisionWriterTest, AStreamThatFailsStopsTheThreadAndFinishSaysSo) {
  RefusingBuffer refusing;
  std::ostream out(&refusing);
  out.exceptions(std::ios::badbit);
  DecisionWriter writer(out, DecisionWriter::Format::kJsonLines, true);
  // More batches than may wait: the caller is not held up by a thread that stopped.
  for (auto& d : Decisions(5000)) writer.Add(std::move(d));
  EXPECT_THROW(writer.Finish(), std::ios_base::failure);
  writer.Finish();  // said once
}

TEST(DecisionWriterTest, AFailingStreamWithoutExceptionsIsLeftBad) {
  RefusingBuffer refusing;
  std::ostream out(&refusing);
  DecisionWriter writer(out, DecisionWriter::Format::kText, true);
  for (auto& d : Decisions(600)) writer.Add(std::move(d));
  writer.Finish();
  EXPECT_FALSE(out.good());
}

}  // namespace
}  // namespace ufmr
