//===- main.cpp - tilefit -------------------------------------------------===//
#include "TilefitMain.h"

int main(int argc, const char **argv) {
  return tilefit::tool::tilefitMain(argc, argv);
}
