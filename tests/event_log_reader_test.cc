// Covers src/offline/event_log_reader.h: a log of several megabytes (so several blocks), with
// multi-line entries, CRLF line ends, an orphan continuation at the start and unreadable entries,
// gives the same entries, offsets, errors and extracted ports on one thread and on three; every
// entry is whole (none cut at a block's end, however long); a file with no entry start is read in
// bounded pieces, each reported; progress is reported with the lines and bytes read; a file that
// cannot be opened is an error.
#include "offline/event_log_reader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/test_env.h"

namespace ufmr {
namespace {

std::string Stamp(int i) {
  char b[64];
  std::snprintf(b, sizeof(b), "2026-11-01 %02d:%02d:%02d.%03d", (i / 3600) % 24, (i / 60) % 60,
                i % 60, i % 1000);
  return b;
}

// `n` entries: link downs, a three-line entry every 7th, a bad one every 1000th, CRLF every 5th.
std::string MakeLog(int n, std::vector<uint64_t>* offsets) {
  std::string log = "  an orphan continuation line\n";
  for (int i = 0; i < n; ++i) {
    offsets->push_back(log.size());
    const std::string eol = i % 5 == 0 ? "\r\n" : "\n";
    if (i % 1000 == 999) {
      log += Stamp(i) + " garbage" + eol;
      continue;
    }
    log += Stamp(i) + " [" + std::to_string(i) +
           "] [329] WARNING [Fabric_Topology] Link [Source fc6a1c0300000000_" +
           std::to_string(i % 40 + 1) +
           "  TO Dest: 9c05910300000100_1]: Link went down: (Switch:ib-leaf-0001:1/1/1)"
           "fc6a1c0300000000:" +
           std::to_string(i % 40 + 1) +
           " - (Switch:ib-spine-001:1/1/1)9c05910300000100:1, cable S/N: MT2330FT0" +
           std::to_string(i % 10) + eol;
    if (i % 7 == 0) log += "  continued once" + eol + "  continued twice" + eol;
  }
  return log;
}

struct Got {
  std::vector<ReadEntry> entries;
  std::vector<ReadProgress> progress;
  Status status;
};

Got Read(const std::string& path, int jobs) {
  Got got;
  EventLogReadOptions options;
  options.jobs = jobs;
  options.progress = [&](const ReadProgress& p) { got.progress.push_back(p); };
  got.status = ReadEventLogFile(path, options, [&](ReadEntry& e) { got.entries.push_back(e); });
  return got;
}

class EventLogReaderTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::MakeTempDir("event-log-reader"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Write(const std::string& text) {
    std::string path = dir_ + "/event.log";
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  std::string dir_;
};

TEST_F(EventLogReaderTest, OneThreadAndThreeGiveTheSameEntriesInFileOrder) {
  std::vector<uint64_t> offsets;
  const std::string log = MakeLog(30000, &offsets);
  ASSERT_GT(log.size(), 4u << 20);  // several blocks
  const std::string path = Write(log);
  Got one = Read(path, 1);
  Got three = Read(path, 3);
  ASSERT_TRUE(one.status.ok()) << one.status.message();
  ASSERT_TRUE(three.status.ok()) << three.status.message();
  // The orphan continuation, then every entry.
  ASSERT_EQ(one.entries.size(), offsets.size() + 1);
  ASSERT_EQ(three.entries.size(), one.entries.size());
  EXPECT_EQ(one.entries[0].offset, 0u);
  EXPECT_FALSE(one.entries[0].error.empty());
  for (size_t i = 1; i < one.entries.size(); ++i) {
    const ReadEntry& a = one.entries[i];
    const ReadEntry& b = three.entries[i];
    const int n = static_cast<int>(i - 1);
    ASSERT_EQ(a.offset, offsets[i - 1]) << "entry " << n;
    EXPECT_EQ(b.offset, a.offset) << "entry " << n;
    EXPECT_EQ(b.error, a.error) << "entry " << n;
    if (n % 1000 == 999) {
      EXPECT_FALSE(a.error.empty()) << "entry " << n;
      continue;
    }
    ASSERT_TRUE(a.error.empty()) << "entry " << n << ": " << a.error;
    EXPECT_EQ(a.obs.event_id, n) << "entry " << n;
    EXPECT_EQ(b.obs.event_id, n) << "entry " << n;
    EXPECT_EQ(b.obs.time, a.obs.time) << "entry " << n;
    EXPECT_EQ(b.obs.description, a.obs.description) << "entry " << n;
    // A three-line entry is whole, and no CR is left at a line's end.
    EXPECT_EQ(a.obs.description.find('\r'), std::string::npos) << "entry " << n;
    EXPECT_EQ(a.obs.description.find("continued twice") != std::string::npos, n % 7 == 0)
        << "entry " << n;
    ASSERT_EQ(a.obs.ports.size(), 2u) << "entry " << n;
    EXPECT_EQ(a.obs.ports[0], "fc6a1c0300000000_" + std::to_string(n % 40 + 1));
    EXPECT_EQ(b.obs.ports, a.obs.ports) << "entry " << n;
    EXPECT_EQ(b.obs.cable_serial, a.obs.cable_serial) << "entry " << n;
  }
}

// Replay reads the ports the text of an event that names none of its own names, for every such
// event: the reader reads them where it parses the entry (a thread of its own with --jobs), as
// ExtractPortSubjects would, and for no other event. In an event log such a text names none the
// parser did not take as the event's own (these name none: the list is empty, the flag is what is
// tested here); that the pipeline uses a list it is given is ReplayTest's
// APortlessEventsPortsReadAlreadyAreLearnedAsIfReadHere.
TEST_F(EventLogReaderTest, AnEventThatNamesNoPortOfItsOwnComesWithTheTextsPorts) {
  std::string log;
  for (int i = 0; i < 3000; ++i) {
    const std::string n = std::to_string(i % 90 + 10);
    switch (i % 3) {
      case 0:  // a host port: no port of its own, its reference only
        log += Stamp(i) + " [" + std::to_string(i) +
               "] [64] INFO [Fabric_Notification] Port [Default / Computer: gpu-node-000" + n +
               " HCA-1 / 1] [dev_id: e41d2d03000000" + n + "]: GID address out of service\n";
        break;
      case 1:  // a whole switch, its message naming a port in the newer shape without a GUID
        log += Stamp(i) + " [" + std::to_string(i) +
               "] [907] CRITICAL [Hardware] Switch [Default / Switch: ib-leaf-00" + n +
               "]: Switch is down (Switch:ib-leaf-00" + n + ":1/1/1) (Computer:host-" + n +
               " HCA-1)\n";
        break;
      default:  // a link: its ports are its own
        log += Stamp(i) + " [" + std::to_string(i) +
               "] [329] WARNING [Fabric_Topology] Link [Source fc6a1c03000000" + n +
               "_1 TO Dest: 9c05910300000100_" + n + "]: Link went down: (Switch:ib-leaf-00" + n +
               ":1/1/1)fc6a1c03000000" + n + ":1 - (Switch:ib-spine-001:1/1/" + n +
               ")9c05910300000100:" + n + "\n";
    }
  }
  const std::string path = Write(log);
  Got one = Read(path, 1);
  Got three = Read(path, 3);
  ASSERT_TRUE(one.status.ok()) << one.status.message();
  ASSERT_EQ(one.entries.size(), 3000u);
  ASSERT_EQ(three.entries.size(), one.entries.size());
  size_t read = 0;
  for (size_t i = 0; i < one.entries.size(); ++i) {
    SCOPED_TRACE(i);
    for (const ReadEntry* e : {&one.entries[i], &three.entries[i]}) {
      ASSERT_TRUE(e->error.empty()) << e->error;
      EXPECT_EQ(e->named_read, e->obs.ports.empty());
      const std::vector<PortSubject> want =
          e->named_read ? ExtractPortSubjects(e->obs.description) : std::vector<PortSubject>{};
      ASSERT_EQ(e->named.size(), want.size());
      for (size_t k = 0; k < want.size(); ++k) {
        EXPECT_EQ(e->named[k].port, want[k].port);
        EXPECT_EQ(e->named[k].is_switch, want[k].is_switch);
        EXPECT_EQ(e->named[k].node, want[k].node);
        EXPECT_EQ(e->named[k].label, want[k].label);
      }
    }
    read += one.entries[i].named_read;
  }
  EXPECT_EQ(read, 2000u);  // the host ports' and the switches' events
}

TEST_F(EventLogReaderTest, AnEntryLongerThanABlockIsReadWhole) {
  std::string log = Stamp(0) + " [1] [394] CRITICAL [Hardware] Switch [Default / Switch: sw]: " +
                    "Module status FAULT:\n";
  for (int i = 0; i < 60000; ++i) log += "  PSU " + std::to_string(i) + ": failed\n";
  log += Stamp(1) + " [2] [352] INFO [Logical_Model] Grid [Grid]: Network Added\n";
  ASSERT_GT(log.size(), 1u << 20);
  Got got = Read(Write(log), 2);
  ASSERT_TRUE(got.status.ok()) << got.status.message();
  ASSERT_EQ(got.entries.size(), 2u);
  // The assembler caps an entry's size: the first is cut there, not at the block's end.
  EXPECT_EQ(got.entries[0].obs.event_id, 1);
  EXPECT_EQ(got.entries[1].obs.event_id, 2);
  EXPECT_EQ(got.entries[1].offset, log.rfind(Stamp(1)));
}

TEST_F(EventLogReaderTest, AFileWithoutEntriesIsReadInPiecesAndReported) {
  // 80 MB of lines that start no entry: more than a block may grow to.
  std::string text;
  const std::string line(99, 'x');
  while (text.size() < (80u << 20)) text += line + "\n";
  Got got = Read(Write(text), 2);
  ASSERT_TRUE(got.status.ok()) << got.status.message();
  ASSERT_GE(got.entries.size(), 2u);  // cut where the block reached its limit
  for (const auto& e : got.entries) EXPECT_FALSE(e.error.empty());
  ASSERT_FALSE(got.progress.empty());
  EXPECT_EQ(got.progress.back().bytes, text.size());
}

TEST_F(EventLogReaderTest, ProgressCountsLinesAndBytesAndTheLogsTime) {
  std::vector<uint64_t> offsets;
  const std::string log = MakeLog(2000, &offsets);
  Got got = Read(Write(log), 1);
  ASSERT_TRUE(got.status.ok());
  ASSERT_FALSE(got.progress.empty());  // at least the last report
  const ReadProgress& last = got.progress.back();
  EXPECT_EQ(last.bytes, log.size());
  EXPECT_EQ(last.total_bytes, log.size());
  EXPECT_EQ(last.lines, static_cast<uint64_t>(std::count(log.begin(), log.end(), '\n')));
  ASSERT_TRUE(last.log_time.has_value());
  // The last readable entry's (the very last is unreadable).
  ASSERT_FALSE(got.entries.back().error.empty());
  EXPECT_EQ(*last.log_time, got.entries[got.entries.size() - 2].obs.time);
}

TEST_F(EventLogReaderTest, AFileThatCannotBeOpenedIsAnError) {
  Got got = Read(dir_ + "/missing.log", 2);
  EXPECT_FALSE(got.status.ok());
  EXPECT_NE(got.status.message().find("missing.log"), std::string::npos);
  EXPECT_TRUE(got.entries.empty());
}

}  // namespace
}  // namespace ufmr
