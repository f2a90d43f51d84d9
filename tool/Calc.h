//===- Calc.h - tilefit calc, the footprint calculator ----------*- C++ -*-===//
#ifndef TILEFIT_TOOL_CALC_H
#define TILEFIT_TOOL_CALC_H

#include "llvm/Support/CommandLine.h"

#include <string>
#include <vector>

namespace tilefit {
namespace tool {

/// `tilefit calc --tile 128 256 --dtype float32 ...`
extern llvm::cl::SubCommand CalcCommand;
/// Its options, shown by `tilefit calc --help`.
extern llvm::cl::OptionCategory CalcCategory;
/// What `tilefit calc --help` says first.
extern const char CalcOverview[];

/// llvm::cl takes one value per flag: for `tilefit calc`, `--tile 128 256` (the
/// numbers after --tile, up to the next option) becomes `--tile=128,256`. Other
/// command lines are returned unchanged. The new strings live until the program
/// ends.
std::vector<const char *> joinTileValues(std::vector<const char *> Args);

/// Runs `tilefit calc` from its parsed options; \p CapacityDbPath is the
/// built-in database. 0: fits, or no capacity asked; 1: does not fit; 2: bad
/// input.
int runCalc(const std::string &CapacityDbPath);

} // namespace tool
} // namespace tilefit

#endif
