// foehn_version(): the project's version (CMake's project() is its one place).
#include "foehn/foehn.h"

extern "C" const char* foehn_version(void) { return FOEHN_VERSION_TEXT; }
