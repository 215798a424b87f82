// ReadCsvRecords: the records of a small CSV text (RFC 4180: quoted fields, "" inside quotes,
// LF or CRLF line ends), for the catalogue's compiled-in tables. Pure; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ufmr {

std::vector<std::vector<std::string>> ReadCsvRecords(std::string_view text, bool skip_header);

}  // namespace ufmr
