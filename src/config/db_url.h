// Database URL secrets: libpq quotes the part of a connection string it cannot parse, password
// included, in its error messages. RedactDatabasePassword removes the URL's password from such a
// message before it is logged or shown.
#pragma once

#include <string>
#include <vector>

namespace ufmr {

// The password libpq reads from a connection string: a postgres:// or postgresql:// URI's user
// info (which ends at the first '@' before any '/'; percent-decoded), or a `password=` keyword
// (quotes removed); "" if it has none.
std::string DatabasePassword(const std::string& url);

// `text` with every form of every password the URL may hold replaced by "***": libpq's, the text
// up to the last '@' of the user info, `password=` query parameters; as written and decoded.
std::string RedactDatabasePassword(std::string text, const std::string& url);

// Those forms, longest first (config/secret_mask.h masks them everywhere).
std::vector<std::string> DatabasePasswordForms(const std::string& url);

}  // namespace ufmr
