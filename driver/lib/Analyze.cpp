//===- Analyze.cpp - One run of tilefit, stage after stage ----------------===//
//
// The orchestrator: the toolkit, the commands (Selection.cpp), the settings of
// each configuration (Settings.cpp), the parses and facts (frontend/), the
// model's analysis of each unit, then the policy pass (Policy.cpp).
//
//===----------------------------------------------------------------------===//
#include "Stages.h"

#include "tilefit/frontend/CommandTranslation.h"
#include "tilefit/frontend/CompileCommand.h"
#include "tilefit/frontend/ResultCache.h"
#include "tilefit/frontend/Toolkit.h"
#include "tilefit/model/Arch.h"
#include "tilefit/model/Checks.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <map>
#include <memory>
#include <set>

#ifdef __GLIBC__
#include <malloc.h>
#endif

using namespace llvm;

namespace tilefit {
namespace driver {
namespace {

/// The run cannot start (a broken configuration, capacity database or toolkit):
/// the message, and a finding on each source named (or given a command) at its
/// first line, for whoever shows the report (the editor).
void usageError(const AnalyzeRequest &Req, AnalyzeResult &Result,
                std::string Message) {
  std::vector<std::string> Files = Req.Sources;
  for (const frontend::CompileCommand &C : Req.Commands)
    Files.push_back(C.File);
  for (const std::string &Source : Files) {
    Diagnostic D;
    D.Level = Severity::Error;
    D.Check = std::string(checkInfo(CheckId::Input).Name);
    D.Message = Message;
    D.Loc = {Source, 1, 1};
    Result.R.Diagnostics.push_back(std::move(D));
  }
  Result.UsageError = std::move(Message);
}

} // namespace

namespace {

/// What the parses of a run see: the toolkit, tilefit's and Clang's resource
/// folders, the session's buffers, preambles and cancel flag. False, with the
/// usage error in \p Result, when the toolkit named cannot be used.
bool environmentFor(const AnalyzeRequest &Req, Session &Ses,
                    AnalyzeResult &Result, frontend::ParseEnvironment &Env) {
  const Session::Options &SO = Ses.options();
  std::string ToolkitError;
  if (!Req.NoCudaToolkit)
    Env.Toolkit = frontend::findCudaToolkit(Req.CudaPath, ToolkitError);
  if (!ToolkitError.empty()) {
    usageError(Req, Result, ToolkitError);
    return false;
  }
  if (Req.NoCudaToolkit && !SO.Quiet)
    Ses.message(
        "note",
        "--no-cuda-toolkit: using tilefit's built-in CUDA prelude: plain "
        "kernels are analysed, sources that include CUDA headers will not "
        "parse");
  else if (!Req.NoCudaToolkit && !Env.Toolkit.found())
    Ses.message(
        "note",
        "no CUDA toolkit found (looked in " + join(Env.Toolkit.Searched, ", ") +
            "); using tilefit's built-in CUDA prelude: plain kernels are "
            "analysed, sources that include CUDA headers will not parse");
  Env.ResourceInclude = Req.ShareDir + "/include";
  Env.ClangResourceDir = TILEFIT_CLANG_RESOURCE_DIR;
  Env.Unsaved = Ses.Unsaved;
  Env.Cancelled = Ses.Cancelled;
  Env.Preambles = Ses.preambles();
  Env.Memo = Ses.memo();
  Env.SliceBodies = Req.SliceBodies;
  // A crash on a fast path costs a second parse, not the unit: said once a
  // run.
  auto Said = std::make_shared<std::atomic<bool>>(false);
  Env.FastPathCrashed = [&Ses, Said](const std::string &Text) {
    if (!Said->exchange(true))
      Ses.message("warning", Text + " (said once a run)");
  };
  return true;
}

/// The units of a run under their settings: one per configuration file.
struct RunUnits {
  std::map<std::string, std::unique_ptr<Settings>>
      SettingsOf;                                       // by configuration file
  std::map<std::string, const Settings *> UnitSettings; // by unit file
  std::vector<frontend::UnitJob> Jobs;
};

/// The settings of each configuration, and the jobs of each command under its
/// settings. What applies to every unit (the command line, --config,
/// --config-file) stops the run when it is wrong (false, the usage error in
/// \p Result); a configuration file found above some sources only stops their
/// units.
bool unitsUnderSettings(const AnalyzeRequest &Req, Session &Ses,
                        const std::vector<frontend::CompileCommand> &Commands,
                        AnalyzeResult &Result, RunUnits &Units) {
  std::map<std::string, std::string> BrokenConfig; // its error, by file
  {
    auto Global = settingsFrom(Req, Req.ConfigFile);
    if (!Global) {
      usageError(Req, Result, toString(Global.takeError()));
      return false;
    }
    Units.SettingsOf.emplace(Req.ConfigFile, std::move(*Global));
  }
  for (const frontend::CompileCommand &C : Commands) {
    std::string Key = configFileFor(Req, Ses, C.File);
    auto It = Units.SettingsOf.find(Key);
    if (It == Units.SettingsOf.end() && !BrokenConfig.count(Key)) {
      if (auto S = settingsFrom(Req, Key)) {
        It = Units.SettingsOf.emplace(Key, std::move(*S)).first;
      } else {
        BrokenConfig[Key] = toString(S.takeError());
        Ses.message("error", BrokenConfig[Key]); // once per file, with its line
      }
    }
    if (It == Units.SettingsOf.end()) {
      Result.R.ToolMessages.push_back(inputProblem(
          C.File, "'" + C.File + "' not analysed: its configuration " + Key +
                      " is invalid"));
      Result.Failed = true;
      continue;
    }
    Units.UnitSettings[C.File] = It->second.get();
    for (frontend::UnitJob &J : frontend::planJobs({C}, It->second->Archs)) {
      J.PrecompileIncludes = It->second->Cfg.PrecompileIncludes.value_or(
          std::vector<std::string>());
      Units.Jobs.push_back(std::move(J));
    }
  }
  return true;
}

/// Flags tilefit dropped and architectures it has no limits for: one warning
/// each for the whole run.
void warnOnce(Session &Ses, const RunUnits &Units) {
  std::set<std::string> Unknown, Refused, UnknownArchs, Warnings;
  std::set<std::string> DefaultArchUnits;
  for (const frontend::UnitJob &J : Units.Jobs) {
    const Settings &S = *Units.UnitSettings.at(J.Command.File);
    if (J.Flags.Targets.empty() && !J.Flags.NativeArch && S.Archs.empty())
      DefaultArchUnits.insert(J.Command.File);
    Unknown.insert(J.Flags.Unknown.begin(), J.Flags.Unknown.end());
    Warnings.insert(J.Flags.Warnings.begin(), J.Flags.Warnings.end());
    if (J.Flags.NativeArch && S.Archs.empty())
      Warnings.insert(frontend::nativeArchWarning());
    Refused.insert(J.Flags.Refused.begin(), J.Flags.Refused.end());
    if (!S.Db.lookup(J.Target.Real))
      UnknownArchs.insert(J.Target.Real);
  }
  if (!Unknown.empty())
    Ses.message("warning", "ignored nvcc flags tilefit does not know: " +
                               join(std::vector<std::string>(Unknown.begin(),
                                                             Unknown.end()),
                                    " "));
  if (!Refused.empty())
    Ses.message(
        "warning",
        "ignored flags that would load code into tilefit (or read flags from a "
        "file past its checks): " +
            join(std::vector<std::string>(Refused.begin(), Refused.end()),
                 " "));
  for (const std::string &W : Warnings)
    Ses.message("warning", W);
  if (!DefaultArchUnits.empty())
    Ses.message("note",
                "no architecture given for " +
                    (DefaultArchUnits.size() == 1
                         ? "'" + *DefaultArchUnits.begin() + "'"
                         : std::to_string(DefaultArchUnits.size()) + " units") +
                    " (by its command, --arch or the configuration's "
                    "Architectures): analysed for " +
                    DefaultArch +
                    ", nvcc 13's default; choose with --arch=sm_XX,... or "
                    "Architectures in .tilefit.yaml");
  for (const std::string &A : UnknownArchs)
    Ses.message(
        "warning",
        A + " is not in the capacity database; its kernels are reported "
            "without limits or checks");
}

/// Parses every unit and analyses each as its facts become final, into its own
/// part of the report, packed (Parts.cpp): the run holds the facts of the
/// units in flight and the packed parts, not every unit's facts; the parts
/// joined in job order are the report of the units analysed one after
/// another. False when the run was cancelled.
bool parseAndAnalyze(const AnalyzeRequest &Req, Session &Ses,
                     frontend::ParseEnvironment &Env, const RunUnits &Units,
                     AnalyzeResult &Result) {
  const Session::Options &SO = Ses.options();
  Report &R = Result.R;
  unsigned Threads = Req.Threads
                         ? Req.Threads
                         : llvm::hardware_concurrency().compute_thread_count();
  frontend::ProgressFn Progress;
  if (SO.Progress && Units.Jobs.size() > 1)
    Progress = [](size_t Done, size_t Total, const frontend::UnitJob &J) {
      errs() << "\r[" << Done << "/" << Total << "] "
             << sys::path::filename(J.Command.File) << " " << J.Target.Real
             << "\x1b[K";
      if (Done == Total)
        errs() << "\n";
    };
  frontend::ResultCache *Cache = Ses.Unsaved.empty() ? Ses.cache() : nullptr;
  Env.Cache = Cache;
  // The precompiled CUDA runtime headers live in the cache folder too (and
  // serve the language server, whose unsaved buffers keep the result cache
  // out).
  Env.Pch = Ses.pch();
  std::vector<PackedPart> Parts(Units.Jobs.size());
  frontend::parseAll(Units.Jobs, Env, Threads, Progress,
                     [&](size_t I, TranslationUnitFacts &&TU) {
                       const Settings &S =
                           *Units.UnitSettings.at(Units.Jobs[I].Command.File);
                       Report Part;
                       analyzeUnit(TU, S.Db, S.Opts, Part);
                       // A unit with errors is analysed all the same; it fails
                       // the run unless the configuration
                       // (--allow-parse-errors, AllowParseErrors) accepts it.
                       const bool Allowed =
                           TU.Partial && S.Cfg.AllowParseErrors.value_or(false);
                       if (Allowed)
                         Part.Units.back().ErrorsAllowed = true;
                       Result.Failed |= TU.Failed || (TU.Partial && !Allowed);
                       Parts[I].pack(std::move(Part), Units.Jobs.size() > 1);
#ifdef __GLIBC__
                       // The parse's memory back to the system before the next
                       // one: what glibc keeps of it would add up over a
                       // project.
                       TU = TranslationUnitFacts();
                       malloc_trim(0);
#endif
                     });
  if (Cache) {
    Cache->trim();
    if (SO.CacheStats)
      Ses.message("note", "result cache " + Cache->dir() + ": " +
                              std::to_string(Cache->hits()) + " hit(s), " +
                              std::to_string(Cache->misses()) + " miss(es)");
  }
  if (Ses.Cancelled && *Ses.Cancelled)
    return false;
  size_t Kernels = R.Kernels.size();
  for (const PackedPart &P : Parts)
    Kernels += P.kernels();
  R.Kernels.reserve(Kernels);
  for (PackedPart &P : Parts)
    if (llvm::Error E = P.unpackInto(R)) {
      // Never seen: the codec reads back every document it writes.
      R.ToolMessages.push_back(
          inputProblem("", "a unit's part of the report was lost: " +
                               toString(std::move(E))));
      Result.Failed = true;
    }
  return true;
}

} // namespace

AnalyzeResult analyze(const AnalyzeRequest &Req, Session &Ses) {
  AnalyzeResult Result;
  frontend::ParseEnvironment Env;
  if (!environmentFor(Req, Ses, Result, Env))
    return Result;
  std::vector<frontend::CompileCommand> Commands =
      selectCommands(Req, Result.R, Result.Failed);
  keepShard(Req, Commands);
  RunUnits Units;
  if (!unitsUnderSettings(Req, Ses, Commands, Result, Units))
    return Result;
  warnOnce(Ses, Units);
  if (Ses.options().ShowCommands)
    for (const frontend::UnitJob &J : Units.Jobs)
      errs() << frontend::joinCommandLine(frontend::parseCommandLine(J, Env))
             << "\n";
  if (!parseAndAnalyze(Req, Ses, Env, Units, Result)) {
    Result.Cancelled = true;
    return Result;
  }
  // The program-wide checks follow the checks of the first unit's
  // configuration.
  if (!Units.Jobs.empty())
    checkProgram(Units.UnitSettings.at(Units.Jobs.front().Command.File)->Opts,
                 Result.R);
  finalizeReport(Result.R);
  applyPolicy(Req, Ses, Units.UnitSettings, Units.Jobs, Env, Result.R);
  return Result;
}

} // namespace driver
} // namespace tilefit
