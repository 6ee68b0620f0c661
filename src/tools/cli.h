// The `foehn` command line (apps/foehn/main.cpp only calls this), kept in the
// library so that tests can run it in-process.
#pragma once

#include <ostream>

namespace foehn::tools {

// Parses the arguments (CLI11), runs the subcommand, prints to out/err and
// returns the exit status: 0 when all is well, 1 on a configuration or
// option error, 2 on a usage error (unknown option, missing argument).
int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace foehn::tools
