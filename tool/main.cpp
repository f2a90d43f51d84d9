//===- main.cpp - tilefit -------------------------------------------------===//
#include "HugePages.h"
#include "TilefitMain.h"

int main(int argc, const char **argv) {
  // Before anything else: this may run the program again (HugePages.h).
  tilefit::tool::runWithHugePages(const_cast<char **>(argv));
  return tilefit::tool::tilefitMain(argc, argv);
}
