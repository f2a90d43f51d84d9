//===- TilefitMain.h - The tilefit command ----------------------*- C++ -*-===//
#ifndef TILEFIT_TOOL_TILEFITMAIN_H
#define TILEFIT_TOOL_TILEFITMAIN_H

namespace tilefit {
namespace tool {

/// tilefit's exit statuses.
enum ExitCode : int {
  ExitOk = 0,       ///< No finding at error level.
  ExitFindings = 1, ///< At least one finding at error level.
  ExitFailure =
      2, ///< Usage error, unreadable input, or a translation unit that failed.
};

int tilefitMain(int argc, const char **argv);

} // namespace tool
} // namespace tilefit

#endif
