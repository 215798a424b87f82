// The commands of ufm-remediator as the command line reads them (src/app/cli.h): each one's words,
// arguments, options and help text. main.cc runs the command chosen. Plain data.
#pragma once

#include <vector>

#include "app/cli.h"

namespace ufmr::app {

// Every command and group, parents before their commands; the one with no words is the program.
const std::vector<CommandSpec>& Commands();

}  // namespace ufmr::app
