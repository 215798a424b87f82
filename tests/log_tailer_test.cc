// Covers src/ingest/log_tailer.h with real files in a temporary directory: appending, a partial
// last line, rename + create rotation (also with late writes to the renamed file and an
// unterminated last line), copytruncate (with and without the copy's help), truncate-and-refill, a
// missing file that appears, a deleted file, resume from a saved position (same file, rotated while
// down, copytruncated while down, replaced with no copy left), overlong lines, the per-poll budget,
// LogPosition JSON, and the tailer + EventLogAssembler cursor recipe across rotations and restarts.
#include "ingest/log_tailer.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "ingest/event_log.h"

namespace ufmr {
namespace {

namespace fs = std::filesystem;
using Kind = TailNotice::Kind;
using Lines = std::vector<std::string>;

class LogTailerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "log_tailer_test.XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    path_ = (fs::path(dir_) / "event.log").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  static void Append(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::app);
    out << text;
  }
  static void Write(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
  }
  // logrotate copytruncate: copy, then truncate the original in place (same inode).
  void CopyTruncate() {
    fs::copy_file(path_, path_ + ".1", fs::copy_options::overwrite_existing);
    ASSERT_EQ(::truncate(path_.c_str(), 0), 0);
  }
  static uint64_t Inode(const std::string& path) {
    struct stat st {};
    EXPECT_EQ(::stat(path.c_str(), &st), 0);
    return st.st_ino;
  }
  static Lines Texts(const TailPoll& p) {
    Lines out;
    for (const auto& l : p.lines) out.push_back(l.text);
    return out;
  }
  static bool Has(const TailPoll& p, Kind k) {
    for (const auto& n : p.notices) {
      if (n.kind == k) return true;
    }
    return false;
  }

  std::string dir_;
  std::string path_;
};

TEST_F(LogTailerTest, AppendAndPartialLine) {
  Write(path_, "one\ntw");
  LogTailer t(path_);
  TailPoll p = t.Poll();
  EXPECT_TRUE(p.status.ok());
  EXPECT_TRUE(Has(p, Kind::kOpened));
  EXPECT_EQ(Texts(p), (Lines{"one"}));
  EXPECT_EQ(p.lines[0].offset, 0u);
  EXPECT_EQ(p.lines[0].inode, Inode(path_));
  EXPECT_EQ(t.position().offset, 4u);  // the partial "tw" is not handed out yet

  EXPECT_TRUE(t.Poll().lines.empty());
  Append(path_, "o\nthree\r\n");
  p = t.Poll();
  EXPECT_EQ(Texts(p), (Lines{"two", "three\r"}));  // CR is the assembler's business
  EXPECT_EQ(p.lines[0].offset, 4u);
  EXPECT_EQ(p.lines[1].offset, 8u);
  EXPECT_EQ(p.lines[1].length, 6u);
  EXPECT_FALSE(p.lines[1].unterminated);
  EXPECT_EQ(t.position().offset, 15u);
  EXPECT_TRUE(p.notices.empty());

  Append(path_, "last, no newline");
  EXPECT_TRUE(t.Poll().lines.empty());
  auto last = t.FlushPartial();
  ASSERT_TRUE(last);
  EXPECT_EQ(last->text, "last, no newline");
  EXPECT_TRUE(last->unterminated);
  EXPECT_EQ(last->offset, 15u);
  EXPECT_EQ(t.position().offset, 31u);
  EXPECT_FALSE(t.FlushPartial());
}

TEST_F(LogTailerTest, RenameAndCreateRotationLosesAndRepeatsNothing) {
  Write(path_, "1\n2\n3\n");
  LogTailer t(path_);
  EXPECT_EQ(Texts(t.Poll()), (Lines{"1", "2", "3"}));
  uint64_t old_inode = Inode(path_);
  Append(path_, "4\n5\n");
  fs::rename(path_, path_ + ".1");
  Append(path_ + ".1", "6\n7-unterminated");  // the writer still had the old file open
  Write(path_, "8\n9\n");
  TailPoll p = t.Poll();
  EXPECT_EQ(Texts(p), (Lines{"4", "5", "6", "7-unterminated", "8", "9"}));
  EXPECT_TRUE(Has(p, Kind::kRotated));
  EXPECT_TRUE(p.lines[3].unterminated);
  EXPECT_EQ(p.lines[3].inode, old_inode);
  EXPECT_EQ(p.lines[4].inode, Inode(path_));
  EXPECT_EQ(p.lines[4].offset, 0u);
  EXPECT_EQ(t.reading(), path_);
  Append(path_, "10\n");
  EXPECT_EQ(Texts(t.Poll()), (Lines{"10"}));
  EXPECT_EQ(t.position().inode, Inode(path_));
  EXPECT_EQ(t.position().offset, 7u);
}

TEST_F(LogTailerTest, RenamedFileIsFollowedUntilTheNewOneAppears) {
  Write(path_, "1\n");
  LogTailer t(path_);
  EXPECT_EQ(Texts(t.Poll()), (Lines{"1"}));
  fs::rename(path_, path_ + ".1");
  Append(path_ + ".1", "2\n");
  TailPoll p = t.Poll();
  EXPECT_EQ(Texts(p), (Lines{"2"}));
  EXPECT_TRUE(p.notices.empty());
  Append(path_ + ".1", "3\n");
  Write(path_, "4\n");
  p = t.Poll();
  EXPECT_EQ(Texts(p), (Lines{"3", "4"}));
  EXPECT_TRUE(Has(p, Kind::kRotated));
}

TEST_F(LogTailerTest, CopyTruncateReadsTheRestFromTheCopy) {
  Write(path_, "2024-01-01 00:00:00.000 first line of the first file\n");
  LogTailer t(path_);
  EXPECT_EQ(t.Poll().lines.size(), 1u);
  Append(path_, "a\nb\n");  // not read before the rotation
  CopyTruncate();
  Append(path_, "2024-01-01 00:00:09.000 new\n");
  TailPoll p = t.Poll();
  EXPECT_EQ(Texts(p), (Lines{"a", "b", "2024-01-01 00:00:09.000 new"}));
  EXPECT_TRUE(Has(p, Kind::kTruncated));
  EXPECT_EQ(t.reading(), path_);
  EXPECT_EQ(t.position().offset, 28u);
}

TEST_F(LogTailerTest, CopyTruncateAndRefilledPastTheOldOffsetIsNoticedByTheFingerprint) {
  Write(path_, "2024-01-01 00:00:00.000 [1] old content, long enough for a fingerprint\n");
  LogTailer t(path_);
  EXPECT_EQ(t.Poll().lines.size(), 1u);
  CopyTruncate();
  std::string fresh;
  for (int i = 0; i < 5; ++i) fresh += "2024-01-02 00:00:0" + std::to_string(i) + ".000 new\n";
  Append(path_, fresh);  // already longer than what was read: only the first bytes tell
  TailPoll p = t.Poll();
  EXPECT_TRUE(Has(p, Kind::kTruncated));
  ASSERT_EQ(p.lines.size(), 5u);
  EXPECT_EQ(p.lines[0].text, "2024-01-02 00:00:00.000 new");
  EXPECT_EQ(p.lines[0].offset, 0u);
}

TEST_F(LogTailerTest, TruncateAndRefillWithoutACopyStartsOverAtZero) {
  Write(path_, "1\n2\n3-partial");
  LogTailer t(path_);
  EXPECT_EQ(Texts(t.Poll()), (Lines{"1", "2"}));
  ASSERT_EQ(::truncate(path_.c_str(), 0), 0);
  TailPoll p = t.Poll();
  EXPECT_TRUE(Has(p, Kind::kTruncated));
  // The partial line's end will never come: handed out, flagged, not dropped.
  ASSERT_EQ(p.lines.size(), 1u);
  EXPECT_EQ(p.lines[0].text, "3-partial");
  EXPECT_TRUE(p.lines[0].unterminated);
  EXPECT_EQ(t.position().offset, 0u);
  Append(path_, "x\ny\n");
  EXPECT_EQ(Texts(t.Poll()), (Lines{"x", "y"}));
}

TEST_F(LogTailerTest, MissingFileIsWaitedForThenReadFromZero) {
  LogTailerOptions options;
  options.start_at_end = true;  // applies to a file that exists at start, not to one that appears
  LogTailer t(path_, std::nullopt, options);
  TailPoll p = t.Poll();
  EXPECT_TRUE(p.status.ok());
  EXPECT_TRUE(p.lines.empty());
  EXPECT_TRUE(Has(p, Kind::kWaiting));
  EXPECT_TRUE(t.Poll().notices.empty());  // said once
  EXPECT_EQ(t.position().inode, 0u);
  Write(path_, "1\n2\n");
  p = t.Poll();
  EXPECT_EQ(Texts(p), (Lines{"1", "2"}));  // a file that appears is new: from 0
  EXPECT_TRUE(Has(p, Kind::kOpened));
}

TEST_F(LogTailerTest, StartAtEndSkipsTheHistoryOfAnExistingFile) {
  Write(path_, "old 1\nold 2\n");
  LogTailerOptions options;
  options.start_at_end = true;
  LogTailer t(path_, std::nullopt, options);
  EXPECT_TRUE(t.Poll().lines.empty());
  Append(path_, "new\n");
  EXPECT_EQ(Texts(t.Poll()), (Lines{"new"}));
}

TEST_F(LogTailerTest, DeletedFileIsReadToItsEndThenANewOneFromZero) {
  Write(path_, "1\n");
  LogTailer t(path_);
  EXPECT_EQ(Texts(t.Poll()), (Lines{"1"}));
  Append(path_, "2\n3-partial");
  fs::remove(path_);  // the tailer's open descriptor still reaches the data
  TailPoll p = t.Poll();
  EXPECT_EQ(Texts(p), (Lines{"2", "3-partial"}));
  EXPECT_TRUE(p.lines[1].unterminated);
  EXPECT_TRUE(Has(p, Kind::kGone));
  EXPECT_EQ(t.position().inode, 0u);
  p = t.Poll();
  EXPECT_TRUE(p.lines.empty());
  EXPECT_FALSE(Has(p, Kind::kWaiting));  // kGone said it
  Write(path_, "new\n");
  EXPECT_EQ(Texts(t.Poll()), (Lines{"new"}));
}

TEST_F(LogTailerTest, ResumeFromASavedPosition) {
  Write(path_, "1\n2\n3-part");
  std::string saved;
  {
    LogTailer t(path_);
    EXPECT_EQ(Texts(t.Poll()), (Lines{"1", "2"}));
    saved = t.position().ToJson();
  }
  Append(path_, "ial\n4\n");
  auto pos = LogPosition::FromJson(saved);
  ASSERT_TRUE(pos.ok()) << pos.status().message();
  EXPECT_EQ(pos->offset, 4u);
  LogTailer t(path_, pos.value());
  TailPoll p = t.Poll();
  EXPECT_EQ(Texts(p), (Lines{"3-partial", "4"}));
  EXPECT_EQ(p.lines[0].offset, 4u);
  EXPECT_TRUE(Has(p, Kind::kResumed));
}

TEST_F(LogTailerTest, ResumeIgnoresADifferentDeviceNumberAndACopiedFileIsNotReplayed) {
  Write(path_, "2024-01-01 00:00:00.000 [1] first entry, long enough to be recognized\n");
  LogPosition saved;
  {
    LogTailer t(path_);
    t.Poll();
    saved = t.position();
  }
  Append(path_, "2024-01-01 00:00:01.000 [2] second\n");
  saved.device += 1;  // an overlay or network mount numbered differently after a restart
  {
    LogTailer t(path_, saved);
    TailPoll p = t.Poll();
    EXPECT_EQ(Texts(p), (Lines{"2024-01-01 00:00:01.000 [2] second"}));
    EXPECT_TRUE(Has(p, Kind::kResumed));
  }
  // The same log restored under another inode (copied back): same first bytes, continue.
  fs::copy_file(path_, path_ + ".tmp");
  fs::rename(path_ + ".tmp", path_);
  ASSERT_NE(Inode(path_), saved.inode);
  Append(path_, "2024-01-01 00:00:02.000 [3] third\n");
  LogTailer t(path_, saved);
  TailPoll p = t.Poll();
  EXPECT_EQ(Texts(p),
            (Lines{"2024-01-01 00:00:01.000 [2] second", "2024-01-01 00:00:02.000 [3] third"}));
  EXPECT_TRUE(Has(p, Kind::kResumed));
}

TEST_F(LogTailerTest, ResumeWhileTheFileIsMissingKeepsTheSavedPosition) {
  Write(path_, "1\n2\n");
  LogPosition saved;
  {
    LogTailer t(path_);
    t.Poll();
    saved = t.position();
  }
  fs::rename(path_, path_ + ".1");
  Append(path_ + ".1", "3\n");
  LogTailer t(path_, saved);
  EXPECT_TRUE(Has(t.Poll(), Kind::kWaiting));
  EXPECT_EQ(t.position(), saved);  // nothing read: the cursor must not move
  Write(path_, "4\n");
  TailPoll p = t.Poll();
  EXPECT_EQ(Texts(p), (Lines{"3", "4"}));
  EXPECT_TRUE(Has(p, Kind::kResumedFromRotated));
}

TEST_F(LogTailerTest, ResumeAfterRotationWhileDownReadsTheRotatedRestThenTheNewFile) {
  Write(path_, "1\n2\n");
  LogPosition saved;
  {
    LogTailer t(path_);
    t.Poll();
    saved = t.position();
  }
  Append(path_, "3\n4\n");
  fs::rename(path_, path_ + ".1");
  Write(path_, "5\n6\n");
  LogTailer t(path_, saved);
  TailPoll p = t.Poll();
  EXPECT_EQ(Texts(p), (Lines{"3", "4", "5", "6"}));
  EXPECT_TRUE(Has(p, Kind::kResumedFromRotated));
  EXPECT_TRUE(Has(p, Kind::kRotated));
  EXPECT_EQ(t.reading(), path_);
}

TEST_F(LogTailerTest, ResumeAfterCopyTruncateWhileDown) {
  Write(path_, "2024-01-01 00:00:00.000 [1] first entry of the old file\n");
  LogPosition saved;
  {
    LogTailer t(path_);
    t.Poll();
    saved = t.position();
  }
  Append(path_, "2024-01-01 00:00:01.000 [2] written while down\n");
  CopyTruncate();
  Append(path_, "2024-01-01 00:00:02.000 [3] new\n");
  LogTailer t(path_, saved);
  TailPoll p = t.Poll();
  EXPECT_EQ(Texts(p), (Lines{"2024-01-01 00:00:01.000 [2] written while down",
                             "2024-01-01 00:00:02.000 [3] new"}));
  EXPECT_TRUE(Has(p, Kind::kResumedFromRotated));
}

TEST_F(LogTailerTest, ResumeAfterTheFileWasReplacedAndNoCopyMatches) {
  Write(path_, "2024-01-01 00:00:00.000 [1] the old file, whose rest is gone\n");
  LogPosition saved;
  {
    LogTailer t(path_);
    t.Poll();
    saved = t.position();
  }
  fs::remove(path_);
  Write(path_ + ".1", "2024-01-01 00:00:00.000 [0] an older rotation, not ours\n");
  Write(path_, "2024-02-01 00:00:00.000 [1] a new file\n");
  LogTailer t(path_, saved);
  TailPoll p = t.Poll();
  EXPECT_EQ(Texts(p), (Lines{"2024-02-01 00:00:00.000 [1] a new file"}));
  EXPECT_TRUE(Has(p, Kind::kResumeLost));
}

TEST_F(LogTailerTest, ResumeOnTheSameInodeRewrittenInPlaceIsNotTrusted) {
  Write(path_, "2024-01-01 00:00:00.000 [1] original\n");
  LogPosition saved;
  {
    LogTailer t(path_);
    t.Poll();
    saved = t.position();
  }
  Write(path_, "2024-03-03 00:00:00.000 [9] rewritten in place, and longer than before\n");
  ASSERT_EQ(Inode(path_), saved.inode);
  LogTailer t(path_, saved);
  TailPoll p = t.Poll();
  EXPECT_EQ(Texts(p),
            (Lines{"2024-03-03 00:00:00.000 [9] rewritten in place, and longer than before"}));
  EXPECT_TRUE(Has(p, Kind::kResumeLost));
}

TEST_F(LogTailerTest, OverlongLinesAreCappedAndTheNextLineIsIntact) {
  LogTailerOptions options;
  options.max_line_bytes = 1000;
  Write(path_, std::string(3000, 'a'));
  LogTailer t(path_, std::nullopt, options);
  EXPECT_TRUE(t.Poll().lines.empty());  // still waiting for its '\n'
  Append(path_, std::string(3000, 'b') + "\nnext\n");
  TailPoll p = t.Poll();
  ASSERT_EQ(p.lines.size(), 2u);
  EXPECT_TRUE(p.lines[0].truncated);
  EXPECT_EQ(p.lines[0].text, std::string(1000, 'a'));
  EXPECT_EQ(p.lines[0].length, 6000u);
  EXPECT_EQ(p.lines[1].text, "next");
  EXPECT_EQ(p.lines[1].offset, 6001u);
  EXPECT_TRUE(Has(p, Kind::kLineTruncated));
}

TEST_F(LogTailerTest, TenMegabyteLineWithDefaultCap) {
  Write(path_, std::string(10 << 20, 'z') + "\n2024-01-01 00:00:00.000 after\n");
  LogTailer t(path_);
  TailPoll p = t.Poll();
  ASSERT_EQ(p.lines.size(), 2u);
  EXPECT_TRUE(p.lines[0].truncated);
  EXPECT_EQ(p.lines[0].text.size(), LogTailerOptions().max_line_bytes);
  EXPECT_EQ(p.lines[0].length, size_t{10} << 20);
  EXPECT_EQ(p.lines[1].text, "2024-01-01 00:00:00.000 after");
}

TEST_F(LogTailerTest, PerPollBudgetSaysMoreAndKeepsOrder) {
  std::string data;
  for (int i = 0; i < 1000; ++i) data += "line " + std::to_string(i) + "\n";
  Write(path_, data);
  LogTailerOptions options;
  options.max_bytes_per_poll = 1000;
  LogTailer t(path_, std::nullopt, options);
  Lines all;
  int polls = 0;
  for (;;) {
    TailPoll p = t.Poll();
    ++polls;
    for (auto& l : p.lines) all.push_back(l.text);
    if (!p.more) break;
  }
  EXPECT_GT(polls, 5);
  ASSERT_EQ(all.size(), 1000u);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(all[i], "line " + std::to_string(i));
}

TEST_F(LogTailerTest, UnreadableFileIsAnErrorStatusAndRetried) {
  // Something at the path that cannot be read as a log. File modes do not stop root (the tests
  // run as root in CI), so use a directory there, which no one can read as a file.
  fs::create_directory(path_);
  LogTailer t(path_);
  TailPoll p = t.Poll();
  EXPECT_FALSE(p.status.ok());
  EXPECT_NE(p.status.message().find("not a regular file"), std::string::npos) << p.status.message();
  EXPECT_TRUE(p.lines.empty());
  fs::remove(path_);
  Write(path_, "1\n");
  EXPECT_EQ(Texts(t.Poll()), (Lines{"1"})) << "retried, and read once it is a file";
}

TEST(LogPositionTest, JsonRoundTripAndErrors) {
  LogPosition p{2049, 1835011, 8812, 256, 0x0f63bd4c8601b7dfULL};
  std::string json = p.ToJson();
  EXPECT_EQ(json, R"({"dev":2049,"ino":1835011,"offset":8812,"head_len":256,)"
                  R"("head_fnv1a64":"0f63bd4c8601b7df"})");
  auto back = LogPosition::FromJson(json);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back.value(), p);
  for (const char* bad : {"", "[]", "not json", R"({"dev":1,"ino":2,"offset":3})",
                          R"({"dev":1,"ino":2,"offset":-3,"head_len":0,"head_fnv1a64":"0"})",
                          R"({"dev":1,"ino":2,"offset":3,"head_len":0,"head_fnv1a64":"xyz"})",
                          R"({"dev":1,"ino":2,"offset":3,"head_len":0,"head_fnv1a64":7})"}) {
    EXPECT_FALSE(LogPosition::FromJson(bad).ok()) << bad;
  }
}

// The whole intake as the service would run it: tailer → assembler → parser, saving the cursor
// after every poll (PositionAt the start of an entry still being assembled), with rotations, a
// multi-line entry, and restarts from the saved cursor. Every entry is seen exactly once.
TEST_F(LogTailerTest, IntakeRecipeAcrossRotationsAndRestarts) {
  auto entry = [](int i) {
    return "2024-01-01 00:00:" + std::string(i < 10 ? "0" : "") + std::to_string(i) + ".000 [" +
           std::to_string(i) + "] [329] WARNING [Fabric_Topology] Link [Source " +
           "f4521403008817f0_12  TO Dest: e41d2d0300a4f482_1]: Link went down\n";
  };
  std::vector<int64_t> seen;
  std::optional<LogPosition> cursor;
  auto run = [&](int polls) {
    LogTailer tailer(path_, cursor);
    EventLogAssembler assembler;
    RawLogEntry raw;
    LogEntry e;
    auto handle = [&](const RawLogEntry& r) {
      ASSERT_TRUE(ParseEventLogEntry(r, &e).ok()) << r.text;
      seen.push_back(e.index);
    };
    for (int i = 0; i < polls; ++i) {
      TailPoll p = tailer.Poll();
      for (const auto& l : p.lines) {
        if (assembler.Add(l.text, l.offset, l.inode, &raw)) handle(raw);
      }
      if (p.lines.empty() && assembler.Flush(&raw)) handle(raw);  // writer idle
      auto pending = assembler.pending();
      std::optional<LogPosition> at;
      if (pending) at = tailer.PositionAt(pending->file_id, pending->offset);
      if (pending && !at && assembler.Flush(&raw)) handle(raw);
      cursor = at ? *at : tailer.position();
    }
  };
  Write(path_, entry(1) + entry(2));
  run(1);  // entry 2 is held (it may still get continuation lines); the cursor is at its start
  Append(path_, "  continuation of 2\n" + entry(3));
  fs::rename(path_, path_ + ".1");
  Write(path_, entry(4));
  run(2);  // restart: rest of .1 (2 with its continuation, 3), then the new file (4)
  Append(path_, entry(5));
  fs::rename(path_, path_ + ".1");  // rotated while down, again
  Write(path_, entry(6) + entry(7));
  run(3);
  EXPECT_EQ(seen, (std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7}));
}

}  // namespace
}  // namespace ufmr
