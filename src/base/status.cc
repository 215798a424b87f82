#include "base/status.h"

#include <spdlog/spdlog.h>

namespace ufmr {

std::string Status::ToString() const {
  const char* name = "OK";
  switch (code_) {
    case Code::kOk:
      return "OK";
    case Code::kInvalidArgument:
      name = "InvalidArgument";
      break;
    case Code::kNotFound:
      name = "NotFound";
      break;
    case Code::kConflict:
      name = "Conflict";
      break;
    case Code::kUnavailable:
      name = "Unavailable";
      break;
    case Code::kInternal:
      name = "Internal";
      break;
  }
  return std::string(name) + ": " + message_;
}

bool LogIfError(const Status& status, std::string_view what) {
  if (status.ok()) return true;
  spdlog::warn("{}: {}", what, status.ToString());
  return false;
}

}  // namespace ufmr
