//===- Analyze.h - One run of tilefit over sources or a database -*- C++ -*-===//
#ifndef TILEFIT_DRIVER_ANALYZE_H
#define TILEFIT_DRIVER_ANALYZE_H

#include "tilefit/frontend/CompileCommand.h"
#include "tilefit/frontend/Config.h"
#include "tilefit/frontend/PreambleStore.h"
#include "tilefit/model/Report.h"

#include <atomic>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tilefit {
namespace driver {

/// What the command line asks of an analysis run. Optional fields are set only when given, so
/// that configuration files decide the rest.
struct AnalyzeRequest {
  std::vector<std::string> Sources;
  std::string BuildPath;              ///< -p
  /// --source-root: the project's folder; findings in headers under it are the project's.
  /// Empty: projectRoot's answer.
  std::string SourceRoot;
  std::vector<std::string> Extra;     ///< After `--`.
  bool HaveDashDash = false;
  /// Commands given directly (the launcher's own compile command); replace the selection.
  std::vector<frontend::CompileCommand> Commands;

  frontend::Config Overrides;         ///< --arch, --budget, --checks, --header-filter, ...
  std::vector<std::string> CapacityDbs; ///< --capacity-db, over the configuration's.
  std::string ConfigFile;             ///< --config-file
  /// The language server's limit on the configuration files found above a source: one for
  /// which this says false (outside the workspace) is not read. Null: any.
  std::function<bool(const std::string &)> MayReadConfig;
  std::string ConfigText;             ///< --config
  std::string CudaPath;
  bool NoCudaToolkit = false;
  std::optional<uint64_t> Registers;
  unsigned Threads = 0;
  bool Progress = false;              ///< Show progress on stderr.
  bool Quiet = false;
  bool ShowCommands = false;
  std::optional<std::pair<unsigned, unsigned>> Shard; ///< K of N, 1-based.
  std::string ShareDir;               ///< share/tilefit beside the executable.

  /// The result cache's folder ("" for none) and its size bound; CacheStats says on the
  /// message channel how many parses it saved.
  std::string CacheDir;
  uint64_t CacheMaxBytes = 1ull << 30;
  bool CacheStats = false;

  /// Unsaved editor buffers by absolute path, read instead of the files on disk.
  std::map<std::string, std::string> Unsaved;
  /// Set by another thread to stop the run early; its result is then to be dropped.
  const std::atomic<bool> *Cancelled = nullptr;
  /// Per-file preambles kept between analyses (the language server's; null: none).
  frontend::PreambleStore *Preambles = nullptr;
  /// Where tilefit's own messages go (level, text); default: stderr, in clang's voice.
  std::function<void(const char *Level, const std::string &Text)> Message;
};

struct AnalyzeResult {
  Report R;
  bool Failed = false;                ///< A unit or an input failed.
  std::string UsageError;             ///< Set when the run could not start (exit status 2).
  bool Cancelled = false;             ///< Stopped by AnalyzeRequest::Cancelled: R is partial.
};

/// Selects the commands, parses every unit for every architecture, analyses them, and applies
/// the header filter, NOLINT comments and --warnings-as-errors of each unit's configuration.
AnalyzeResult analyze(const AnalyzeRequest &Req);

/// The project's source folder: the CMake project's (CMakeCache.txt's CMAKE_HOME_DIRECTORY in
/// \p BuildPath, the build folder or its compile_commands.json), else the deepest folder holding
/// every unit of \p R, else the current folder.
std::string projectRoot(const std::string &BuildPath, const Report &R);

/// The effective configuration for \p File (the nearest .tilefit.yaml, --config-file,
/// --config, then the command line), or an error.
llvm::Expected<frontend::Config> effectiveConfig(const AnalyzeRequest &Req, const std::string &File);

} // namespace driver
} // namespace tilefit

#endif
