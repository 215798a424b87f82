// DecisionWriter: replay's decisions written out as JSON lines (the `decisions` row's record) or
// as text, in the order they come, a block at a time. With a thread of its own the lines are
// formatted and written there, so the thread that runs the rules only hands the decisions over
// (in batches, at most a few batches ahead: memory stays flat however long the replay).
#pragma once

#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "decide/decision.h"

namespace ufmr {

class DecisionWriter {
 public:
  enum class Format { kJsonLines, kText };

  // `out` must outlive the writer. `own_thread`: format and write on a thread of the writer's.
  DecisionWriter(std::ostream& out, Format format, bool own_thread);
  ~DecisionWriter();  // writes what is left, as Finish does, and swallows its errors

  DecisionWriter(const DecisionWriter&) = delete;
  DecisionWriter& operator=(const DecisionWriter&) = delete;

  // Not after Finish.
  void Add(Decision&& d);
  // Writes what is left and flushes the stream; waits for the writer's thread, and throws what
  // the writer's thread threw (it then wrote no more). Idempotent. Whether the lines reached the
  // stream is the stream's state.
  void Finish();

  // One decision's line, with its newline, appended to *out.
  static void AppendLine(const Decision& d, Format format, std::string* out);

 private:
  using Batch = std::vector<Decision>;
  void Hand(Batch&& batch);  // to the writer's thread; waits while it is too far behind
  void Run();                // the writer's thread
  void Drain();              // its loop
  void Write(const Batch& batch, std::string* buffer);
  void Flush(std::string* buffer);

  std::ostream& out_;
  const Format format_;
  const bool own_thread_;
  bool finished_ = false;
  Batch batch_;         // being filled by the caller
  std::string buffer_;  // lines not written yet, without a thread of its own

  std::mutex mu_;
  std::condition_variable changed_;
  std::deque<Batch> queue_;  // handed over, not written yet
  bool closing_ = false;
  std::exception_ptr failed_;  // what stopped the writer's thread: batches are dropped after it
  std::thread thread_;
};

}  // namespace ufmr
