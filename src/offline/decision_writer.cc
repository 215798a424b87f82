#include "offline/decision_writer.h"

#include <cassert>

#include "base/clock.h"

namespace ufmr {

namespace {

// Decisions handed over at once, and batches that may wait: about a megabyte of lines.
constexpr size_t kBatch = 512;
constexpr size_t kMaxQueued = 4;
// Lines are gathered and written a block at a time: a month's replay writes millions.
constexpr size_t kWriteAt = 1 << 16;

}  // namespace

DecisionWriter::DecisionWriter(std::ostream& out, Format format, bool own_thread)
    : out_(out), format_(format), own_thread_(own_thread) {
  if (own_thread_) {
    batch_.reserve(kBatch);
    thread_ = std::thread([this] { Run(); });
  }
}

DecisionWriter::~DecisionWriter() {
  try {
    Finish();
  } catch (...) {  // a destructor throws nothing: Finish() is how callers hear of it
  }
  if (thread_.joinable()) {  // Finish() threw before it joined
    {
      std::lock_guard<std::mutex> lock(mu_);
      closing_ = true;
    }
    changed_.notify_all();
    thread_.join();
  }
}

void DecisionWriter::AppendLine(const Decision& d, Format format, std::string* out) {
  if (format == Format::kJsonLines) {
    d.AppendJson(out);
  } else {
    out->append(FormatIsoTime(d.time)).append(" ").append(DecisionKindName(d.kind));
    out->append(" ").append(d.rule).append(" ").append(d.port.empty() ? d.entity : d.port);
    out->append(": ").append(d.reason);
  }
  out->push_back('\n');
}

void DecisionWriter::Add(Decision&& d) {
  assert(!finished_);
  if (!own_thread_) {
    AppendLine(d, format_, &buffer_);
    if (buffer_.size() >= kWriteAt) Flush(&buffer_);
    return;
  }
  batch_.push_back(std::move(d));
  if (batch_.size() < kBatch) return;
  Hand(std::move(batch_));
  batch_ = Batch();
  batch_.reserve(kBatch);
}

void DecisionWriter::Finish() {
  if (finished_) return;
  finished_ = true;
  if (!own_thread_) {
    Flush(&buffer_);
    out_.flush();
    return;
  }
  if (!batch_.empty()) Hand(std::move(batch_));
  {
    std::lock_guard<std::mutex> lock(mu_);
    closing_ = true;
  }
  changed_.notify_all();
  thread_.join();
  if (failed_) std::rethrow_exception(failed_);
  out_.flush();
}

void DecisionWriter::Hand(Batch&& batch) {
  std::unique_lock<std::mutex> lock(mu_);
  changed_.wait(lock, [this] { return queue_.size() < kMaxQueued || failed_; });
  if (failed_) return;  // nothing more is written; Finish() says why
  queue_.push_back(std::move(batch));
  lock.unlock();
  changed_.notify_all();
}

void DecisionWriter::Run() {
  try {
    Drain();
  } catch (...) {
    std::lock_guard<std::mutex> lock(mu_);
    failed_ = std::current_exception();
    queue_.clear();
  }
  changed_.notify_all();
}

void DecisionWriter::Drain() {
  std::string buffer;
  for (;;) {
    Batch batch;
    {
      std::unique_lock<std::mutex> lock(mu_);
      changed_.wait(lock, [this] { return !queue_.empty() || closing_; });
      if (queue_.empty()) break;  // closing, and all written
      batch = std::move(queue_.front());
      queue_.pop_front();
    }
    changed_.notify_all();
    Write(batch, &buffer);
  }
  Flush(&buffer);
}

void DecisionWriter::Write(const Batch& batch, std::string* buffer) {
  for (const Decision& d : batch) {
    AppendLine(d, format_, buffer);
    if (buffer->size() >= kWriteAt) Flush(buffer);
  }
}

void DecisionWriter::Flush(std::string* buffer) {
  out_.write(buffer->data(), static_cast<std::streamsize>(buffer->size()));
  buffer->clear();
}

}  // namespace ufmr
