// foehn: the command line tool (check, plan). The work is in src/tools.
#include <iostream>

#include "tools/cli.h"

int main(int argc, char** argv) { return foehn::tools::run_cli(argc, argv, std::cout, std::cerr); }
