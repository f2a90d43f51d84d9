//===- Analyze.h ------------------------------------------------*- C++ -*-===//
// One run of tilefit over sources or a database.
#ifndef TILEFIT_DRIVER_ANALYZE_H
#define TILEFIT_DRIVER_ANALYZE_H

#include "tilefit/driver/Session.h"
#include "tilefit/frontend/CompileCommand.h"
#include "tilefit/frontend/Config.h"
#include "tilefit/model/Report.h"

#include <optional>
#include <string>
#include <vector>

namespace tilefit {
namespace driver {

/// What one run analyses and how: the units, their configuration, the toolkit.
/// Optional fields are set only when given, so that configuration files decide
/// the rest. What lasts across runs (caches, preambles, messages, the editor's
/// buffers) is the Session's.
struct AnalyzeRequest {
  // The units.
  std::vector<std::string> Sources;
  std::string BuildPath;          ///< -p
  std::vector<std::string> Extra; ///< After `--`.
  bool HaveDashDash = false;
  /// Commands given directly (the launcher's own compile command); replace the
  /// selection.
  std::vector<frontend::CompileCommand> Commands;
  std::optional<std::pair<unsigned, unsigned>> Shard; ///< K of N, 1-based.

  // Their configuration.
  /// --source-root: the project's folder; findings in headers under it are the
  /// project's. Empty: projectRoot's answer.
  std::string SourceRoot;
  frontend::Config
      Overrides; ///< --arch, --budget, --checks, --header-filter, ...
  std::vector<std::string>
      CapacityDbs;        ///< --capacity-db, over the configuration's.
  std::string ConfigFile; ///< --config-file
  std::string ConfigText; ///< --config
  std::optional<uint64_t> Registers;

  // The toolkit, tilefit's own files, the parses' threads.
  std::string CudaPath;
  bool NoCudaToolkit = false;
  std::string ShareDir; ///< share/tilefit beside the executable.
  unsigned Threads = 0;
  /// Instantiate only what can change a shared-memory figure
  /// (frontend::ParseEnvironment::SliceBodies); --no-body-slicing clears it.
  bool SliceBodies = true;
};

struct AnalyzeResult {
  Report R;
  bool Failed = false;    ///< A unit or an input failed.
  std::string UsageError; ///< Set when the run could not start (exit status 2).
  bool Cancelled =
      false; ///< Stopped by AnalyzeRequest::Cancelled: R is partial.
};

/// Selects the commands, parses every unit for every architecture, analyses
/// them, and applies the header filter, NOLINT comments and
/// --warnings-as-errors of each unit's configuration (the policy pass, the last
/// to touch the report). \p S's caches serve the parses, its unsaved buffers
/// replace files, and its messages say what the run could not do.
AnalyzeResult analyze(const AnalyzeRequest &Req, Session &S);

/// The project's source folder: the CMake project's (CMakeCache.txt's
/// CMAKE_HOME_DIRECTORY in \p BuildPath, the build folder or its
/// compile_commands.json), else the deepest folder holding every unit of \p R,
/// else the current folder.
std::string projectRoot(const std::string &BuildPath, const Report &R);

/// The effective configuration for \p File (the nearest .tilefit.yaml that \p S
/// may read, --config-file, --config, then the command line), or an error.
llvm::Expected<frontend::Config> effectiveConfig(const AnalyzeRequest &Req,
                                                 const Session &S,
                                                 const std::string &File);

} // namespace driver
} // namespace tilefit

#endif
