//===- Subcommands.h - diff, merge and the compiler launcher ----*- C++ -*-===//
#ifndef TILEFIT_TOOL_SUBCOMMANDS_H
#define TILEFIT_TOOL_SUBCOMMANDS_H

#include "Output.h"

#include "tilefit/driver/Analyze.h"
#include "tilefit/model/Diff.h"
#include "tilefit/model/Report.h"

#include <optional>
#include <string>
#include <vector>

namespace tilefit {
namespace tool {

/// `tilefit diff OLD.json NEW.json`: 1 when a kernel grew by more than \p
/// Threshold.
int runDiff(const std::vector<std::string> &Inputs, OutputFormat Format,
            const std::optional<GrowthThreshold> &Threshold,
            const std::string &OutputFile);

/// `tilefit merge A.json B.json ...`: the reports as one run's; nothing (after
/// saying why) when an input cannot be read.
std::optional<Report> runMerge(const std::vector<std::string> &Inputs);

/// The compiler launcher: analyses the unit of \p Compiler's command (argv, the
/// compiler first), writes the JSON report beside the object file
/// (OBJECT.tilefit.json), then runs the compiler unchanged and returns its exit
/// status. tilefit's own problems never fail the build.
int runLauncher(const char *Argv0, const std::vector<std::string> &Compiler,
                const std::string &ShareDir);

/// `tilefit lsp`: the language server on stdin/stdout until `exit`; \p Base
/// holds the command line's options for every analysis and \p SessionBase those
/// of the server's session (its caches); \p Preambles: keep each file's
/// preambles.
int runLanguageServer(driver::AnalyzeRequest Base,
                      driver::Session::Options SessionBase,
                      const std::string &CompileCommandsDir,
                      unsigned DebounceMs, bool Preambles);

} // namespace tool
} // namespace tilefit

#endif
