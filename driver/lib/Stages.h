//===- Stages.h - The stages of one run, for its orchestrator ---*- C++ -*-===//
//
// driver::analyze (Analyze.cpp) orchestrates a run; each stage it runs has a
// file of its own: Selection.cpp chooses the compile commands, Settings.cpp
// turns each configuration into the settings of its units, Policy.cpp is the
// policy pass, the last to touch the report.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_DRIVER_STAGES_H
#define TILEFIT_DRIVER_STAGES_H

#include "tilefit/driver/Analyze.h"
#include "tilefit/frontend/Parse.h"
#include "tilefit/model/Analysis.h"
#include "tilefit/model/Capacity.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/Regex.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tilefit {
namespace driver {

// Selection.cpp

std::string currentDir();
std::string absolutePath(llvm::StringRef P);
/// A problem with an input of the run (tilefit-input), at \p File.
Diagnostic inputProblem(const std::string &File, const std::string &Msg);
/// Chooses the compile commands to analyse; reports sources it cannot place.
std::vector<frontend::CompileCommand> selectCommands(const AnalyzeRequest &Req,
                                                     Report &R, bool &Failed);
/// Keeps shard K of N of \p Commands: by the sorted position of each unit's
/// file.
void keepShard(const AnalyzeRequest &Req,
               std::vector<frontend::CompileCommand> &Commands);

// Settings.cpp

/// What one configuration decides for the units under it.
struct Settings {
  frontend::Config Cfg;
  CapacityDatabase Db;
  AnalysisOptions Opts;
  std::vector<std::string> Archs; ///< Empty: the commands' own.
  std::unique_ptr<llvm::Regex>
      HeaderFilter; ///< Null: headers' findings are not shown.
  std::string WarningsAsErrors;
};

/// The configuration file that applies to \p File: --config-file, else the
/// nearest one that \p S may read.
std::string configFileFor(const AnalyzeRequest &Req, const Session &S,
                          const std::string &File);
/// The settings of the configuration at \p Path ("": none).
llvm::Expected<std::unique_ptr<Settings>>
settingsFrom(const AnalyzeRequest &Req, const std::string &Path);

// Parts.cpp
/// One unit's part of the report (Report::Units, Kernels and Diagnostics, as
/// analyzeUnit writes them) from the moment it is final until the report is
/// assembled, packed into one compressed block (its JSON document).
class PackedPart {
public:
  /// Packs \p Part, which is left empty; with \p Compress false (a run of one
  /// unit: nothing to save) keeps it as it is.
  void pack(Report &&Part, bool Compress = true);
  /// Appends the part's units, kernels and diagnostics to \p R's, as they were
  /// in the part, and frees it.
  llvm::Error unpackInto(Report &R);
  size_t kernels() const { return Kernels; }

private:
  std::vector<uint8_t> Packed;
  size_t RawBytes = 0;
  size_t Kernels = 0;
  std::optional<Report> Plain; ///< Not compressed.
};

// Policy.cpp

/// The one policy pass, after the checks and before anything reads the report;
/// nothing changes the report after it. In order: the project's folder
/// (R.SourceRoot); which findings in headers are shown (the header filter of
/// each unit's configuration, else the project's own headers); NOLINT comments;
/// --warnings-as-errors; each kernel's worst finding.
void applyPolicy(const AnalyzeRequest &Req, const Session &Ses,
                 const std::map<std::string, const Settings *> &UnitSettings,
                 const std::vector<frontend::UnitJob> &UnitJobs,
                 const frontend::ParseEnvironment &Env, Report &R);

} // namespace driver
} // namespace tilefit

#endif
