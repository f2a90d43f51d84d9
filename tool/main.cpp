//===- main.cpp - tilefit -------------------------------------------------===//
#include "HugePages.h"
#include "TilefitMain.h"

#if defined(__linux__) && defined(__GLIBC__)
/// Before everything else, the static initializers of LLVM's options among
/// them, so that running again (HugePages.h) costs only the program's loading:
/// glibc hands functions of the initialization array the program's arguments.
__attribute__((constructor(101))) static void hugePagesFirst(int, char **Argv,
                                                              char **) {
  tilefit::tool::runWithHugePages(Argv);
}
#endif

int main(int argc, const char **argv) {
  return tilefit::tool::tilefitMain(argc, argv);
}
