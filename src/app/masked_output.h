// MaskedOutput: every byte the program writes passes the secret mask (config/secret_mask.h):
// standard output and error, line by line (a secret never spans a line), every log line, in
// the text format or JSON, and every HTTP answer the service gives (a JSON answer by its strings,
// /metrics by its names, labels and help, so numbers stay numbers). Installed once, first thing in
// main; the secrets join the mask as a config is loaded. Thread-safe as the streams and spdlog are.
#pragma once

#include <mutex>
#include <ostream>
#include <streambuf>
#include <string>

#include "http/http_server.h"

namespace ufmr::app {

// A stream buffer that holds a line, masks it, and hands it to `out`; a flush (std::cerr's after
// each write, a prompt's) hands on what it holds.
class MaskedLineBuf final : public std::streambuf {
 public:
  explicit MaskedLineBuf(std::streambuf* out) : out_(out) {}

 protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;  // writes what is held, masked, even without its newline

 private:
  // Writes the first `upto` bytes held, masked; false once `out` failed to take them.
  bool Emit(size_t upto);

  std::mutex mu_;  // several threads may write to one stream
  std::streambuf* out_;
  std::string line_;
  bool failed_ = false;  // `out` did not take everything: the stream reports it
};

// Masks std::cout, std::cerr and spdlog from now on; `pattern` is the text logs' pattern.
void MaskOutput(const std::string& pattern);
// Log lines as JSON (log.format: json), masked.
void UseJsonLogs();
// An HTTP answer's body and headers, masked.
void MaskAnswer(HttpResponse* answer);

}  // namespace ufmr::app
