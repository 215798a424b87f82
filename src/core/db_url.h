// Database URL secrets: libpq quotes the part of a connection string it cannot parse, password
// included, in its error messages. RedactDatabasePassword removes the URL's password from such a
// message before it is logged or shown.
#pragma once

#include <string>

namespace ufmr {

// The password of a libpq connection string: the user info of a postgres:// or postgresql://
// URI (percent-decoded), or a `password=` keyword (quotes removed); "" if it has none.
std::string DatabasePassword(const std::string& url);

// `text` with every occurrence of the URL's password (as written and decoded) replaced by "***".
std::string RedactDatabasePassword(std::string text, const std::string& url);

}  // namespace ufmr
