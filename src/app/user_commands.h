// The commands administrators run to manage who may log in: `user add|list|passwd|disable` and
// `token create|list|revoke`, against the database of the config given. Each takes the words
// after `user` or `token` (the subcommand first) and returns the process exit code: 0 done,
// 1 refused or failed (a message on stderr), 2 a usage error. Passwords are read from stdin (asked
// twice without echo on a terminal, else its first line); a new token is printed once on stdout.
#pragma once

#include "api/auth_store.h"
#include "app/cli.h"

namespace ufmr::app {

// user add NAME --role ROLE | user list | user passwd NAME | user disable NAME
int UserCommand(const CommandLine& cl, AuthStore& store);
// token create --user NAME [--label TEXT] | token list | token revoke ID
int TokenCommand(const CommandLine& cl, AuthStore& store);

}  // namespace ufmr::app
