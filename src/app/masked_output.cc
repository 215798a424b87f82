#include "app/masked_output.h"

#include <spdlog/pattern_formatter.h>
#include <spdlog/spdlog.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "base/json_log.h"
#include "config/secret_mask.h"

namespace ufmr::app {

bool MaskedLineBuf::Emit(size_t upto) {  // with mu_
  std::string chunk = SecretMask::Global().Mask(std::string_view(line_).substr(0, upto));
  line_.erase(0, upto);
  const auto size = static_cast<std::streamsize>(chunk.size());
  failed_ = failed_ || out_->sputn(chunk.data(), size) != size;
  return !failed_;
}

MaskedLineBuf::int_type MaskedLineBuf::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  std::lock_guard<std::mutex> lock(mu_);
  line_ += traits_type::to_char_type(c);
  if (line_.back() == '\n' && !Emit(line_.size())) return traits_type::eof();
  return failed_ ? traits_type::eof() : c;
}

std::streamsize MaskedLineBuf::xsputn(const char* s, std::streamsize n) {
  std::lock_guard<std::mutex> lock(mu_);
  if (line_.empty() && SecretMask::Global().empty()) {
    // No secret to mask (replay, rules commands): straight through.
    const std::streamsize wrote = out_->sputn(s, n);
    failed_ = failed_ || wrote != n;
    return wrote;
  }
  line_.append(s, static_cast<size_t>(n));
  const size_t newline = line_.rfind('\n');
  if (newline != std::string::npos && !Emit(newline + 1)) return 0;
  return failed_ ? 0 : n;
}

int MaskedLineBuf::sync() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!line_.empty()) Emit(line_.size());
  return out_->pubsync() == 0 && !failed_ ? 0 : -1;
}

void MaskOutput(const std::string& pattern) {
  // Never destroyed: the streams are flushed through them at exit.
  std::cout.rdbuf(new MaskedLineBuf(std::cout.rdbuf()));
  std::cerr.rdbuf(new MaskedLineBuf(std::cerr.rdbuf()));
  // std::cerr flushes after each insertion, which would mask a line in pieces: a secret written
  // by two insertions would pass. Lines go out whole; an explicit flush (a prompt) still works.
  std::cerr.unsetf(std::ios::unitbuf);
  spdlog::set_formatter(
      std::make_unique<MaskedLogFormatter>(std::make_unique<spdlog::pattern_formatter>(pattern)));
}

void UseJsonLogs() {
  spdlog::set_formatter(std::make_unique<MaskedLogFormatter>(std::make_unique<JsonLogFormatter>()));
}

namespace {

// A JSON document's strings (keys and values) masked; its numbers and structure left whole.
void MaskJsonStrings(nlohmann::json* j, const SecretMask& mask) {
  if (j->is_string()) {
    mask.MaskInPlace(j->get_ptr<std::string*>());
  } else if (j->is_array()) {
    for (auto& v : *j) MaskJsonStrings(&v, mask);
  } else if (j->is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (auto& [k, v] : j->items()) {
      MaskJsonStrings(&v, mask);
      out[mask.Mask(k)] = std::move(v);
    }
    *j = std::move(out);
  }
}

// Prometheus text: names, labels and help masked; each sample's value left whole.
std::string MaskMetrics(const std::string& text, const SecretMask& mask) {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    const size_t value = line[0] == '#' ? std::string::npos : line.rfind(' ');
    if (value == std::string::npos) {
      mask.MaskInPlace(&line);
    } else {
      std::string head = line.substr(0, value);
      mask.MaskInPlace(&head);
      line = head + line.substr(value);
    }
    out += line + (end < text.size() ? "\n" : "");
    start = end + 1;
  }
  return out;
}

}  // namespace

void MaskAnswer(HttpResponse* answer) {
  const SecretMask& mask = SecretMask::Global();
  for (auto& [name, value] : answer->headers) mask.MaskInPlace(&value);
  if (!mask.Holds(answer->body)) return;  // the common case: nothing to mask, nothing copied
  if (answer->content_type.rfind("application/json", 0) == 0) {
    nlohmann::json doc = nlohmann::json::parse(answer->body, nullptr, false);
    if (!doc.is_discarded()) {
      MaskJsonStrings(&doc, mask);
      answer->body = doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      return;
    }
  } else if (answer->content_type.find("version=0.0.4") != std::string::npos) {
    answer->body = MaskMetrics(answer->body, mask);
    return;
  }
  mask.MaskInPlace(&answer->body);
}

}  // namespace ufmr::app
