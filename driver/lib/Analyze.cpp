//===- Analyze.cpp - One run of tilefit -----------------------------------===//
#include "tilefit/driver/Analyze.h"

#include "tilefit/frontend/Analyzer.h"
#include "tilefit/frontend/CommandTranslation.h"
#include "tilefit/frontend/ResultCache.h"
#include "tilefit/frontend/Toolkit.h"
#include "tilefit/model/Analysis.h"
#include "tilefit/model/Arch.h"
#include "tilefit/model/Capacity.h"
#include "tilefit/model/Checks.h"
#include "tilefit/model/GlobList.h"
#include "tilefit/model/Suppressions.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include "llvm/Support/Regex.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"

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

std::string currentDir() {
  SmallString<256> Cwd;
  sys::fs::current_path(Cwd);
  return std::string(Cwd);
}

std::string absolutePath(StringRef P) {
  SmallString<256> Out(P);
  sys::fs::make_absolute(Out);
  sys::path::remove_dots(Out, true);
  return std::string(Out);
}

/// Whether the database file \p Entry matches the source \p Source named on the
/// command line: the same absolute path, or \p Source a path suffix of it (as
/// clang-tidy accepts).
bool sourceMatches(const std::string &Entry, const std::string &Source) {
  if (Entry == absolutePath(Source))
    return true;
  StringRef E = Entry, S = Source;
  return E.ends_with(S) &&
         (E.size() == S.size() || E[E.size() - S.size() - 1] == '/');
}

Diagnostic inputProblem(const std::string &File, const std::string &Msg) {
  Diagnostic D;
  D.Level = Severity::Error;
  D.Check = std::string(checkInfo(CheckId::Input).Name);
  D.Message = Msg;
  D.Loc.File = File;
  return D;
}

/// Chooses the compile commands to analyse; reports sources it cannot place.
std::vector<frontend::CompileCommand> selectCommands(const AnalyzeRequest &Req,
                                                     Report &R, bool &Failed) {
  std::vector<frontend::CompileCommand> Out;
  auto Fail = [&](const std::string &File, const std::string &Msg) {
    R.ToolMessages.push_back(inputProblem(File, Msg));
    Failed = true;
  };
  // The arguments after `--` are a command as the build would run it: pasted
  // with its compiler
  // (`nvcc -arch=sm_80 -c k.cu`), or the flags alone, read as nvcc's when they
  // are spelled so.
  auto Adhoc = [&](const std::string &Src,
                   const std::vector<std::string> &Args) {
    frontend::CompileCommand C;
    C.Directory = currentDir();
    C.File = absolutePath(Src);
    const bool WithCompiler =
        !Args.empty() && frontend::isCompilerName(Args.front());
    if (!WithCompiler)
      C.Arguments.push_back(frontend::argumentsLookLikeNvcc(Args) ? "nvcc"
                                                                  : "clang++");
    C.Arguments.insert(C.Arguments.end(), Args.begin(), Args.end());
    if (std::none_of(Args.begin(), Args.end(), [&](const std::string &A) {
          return absolutePath(A) == C.File;
        }))
      C.Arguments.push_back(C.File);
    C.Origin = "command line";
    return C;
  };
  std::set<std::pair<std::string, std::vector<std::string>>> Seen;
  auto Take = [&](frontend::CompileCommand C) {
    if (Error E = frontend::expandResponseFiles(C)) {
      Fail(C.File, toString(std::move(E)));
      return;
    }
    // Several entries for one file with the same flags (one per build
    // configuration that did not change them) are one unit; the output file
    // does not matter here.
    std::vector<std::string> Key;
    for (size_t I = 0; I < C.Arguments.size(); ++I) {
      if (C.Arguments[I] == "-o") {
        ++I;
        continue;
      }
      Key.push_back(C.Arguments[I]);
    }
    if (Seen.insert({C.File, Key}).second)
      Out.push_back(std::move(C));
  };

  if (!Req.Commands.empty()) {
    for (const frontend::CompileCommand &C : Req.Commands)
      Take(C);
    return Out;
  }
  if (Req.HaveDashDash) {
    for (const std::string &S : Req.Sources)
      Take(Adhoc(S, Req.Extra));
    return Out;
  }

  std::string DbPath = Req.BuildPath;
  if (DbPath.empty() && !Req.Sources.empty())
    DbPath = frontend::findCompilationDatabaseAbove(
        sys::path::parent_path(absolutePath(Req.Sources.front())));
  if (DbPath.empty()) {
    for (const std::string &S : Req.Sources)
      Take(Adhoc(S, {}));
    return Out;
  }

  // An entry tilefit cannot read is an input it was asked to analyse and could
  // not: an error of the run (exit status 2) that stops none of the other
  // entries.
  std::vector<std::string> BadEntries;
  auto Db = frontend::loadCompilationDatabase(DbPath, BadEntries);
  for (const std::string &W : BadEntries)
    Fail(DbPath, W);
  if (!Db) {
    Fail(DbPath, toString(Db.takeError()));
    return Out;
  }
  if (Req.Sources.empty()) {
    // Every CUDA entry of the database; others (host C++) quietly skipped.
    for (frontend::CompileCommand C : *Db) {
      if (Error E = frontend::expandResponseFiles(C)) {
        Fail(C.File, toString(std::move(E)));
        continue;
      }
      if (frontend::translateCommand(C).IsCuda)
        Take(C);
    }
    return Out;
  }
  for (const std::string &S : Req.Sources) {
    bool Found = false;
    for (const frontend::CompileCommand &C : *Db)
      if (sourceMatches(C.File, S)) {
        Take(C);
        Found = true;
      }
    if (!Found) {
      if (!Req.BuildPath.empty())
        Fail(absolutePath(S),
             "no compile command for '" + S + "' in " + DbPath);
      else
        Take(Adhoc(S, {}));
    }
  }
  return Out;
}

/// What one configuration decides for the units under it.
struct Settings {
  frontend::Config Cfg;
  CapacityDatabase Db;
  AnalysisOptions Opts;
  std::vector<std::string> Archs; ///< Empty: the commands' own.
  std::unique_ptr<Regex>
      HeaderFilter; ///< Null: headers' findings are not shown.
  std::string WarningsAsErrors;
};

/// Builds the settings of one effective configuration; the error names what is
/// wrong.
Expected<std::unique_ptr<Settings>> makeSettings(const frontend::Config &Cfg,
                                                 const AnalyzeRequest &Req) {
  auto S = std::make_unique<Settings>();
  S->Cfg = Cfg;
  SmallString<256> BuiltinDb(Req.ShareDir);
  sys::path::append(BuiltinDb, "capacity.json");
  auto Db = CapacityDatabase::load(std::string(BuiltinDb));
  if (!Db)
    return createStringError(std::errc::invalid_argument, "%s",
                             Db.error().c_str());
  S->Db = std::move(*Db);
  std::vector<std::string> Extra;
  if (Cfg.CapacityDatabase)
    Extra.push_back(*Cfg.CapacityDatabase);
  Extra.insert(Extra.end(), Req.CapacityDbs.begin(), Req.CapacityDbs.end());
  for (const std::string &Path : Extra) {
    auto More = CapacityDatabase::load(Path);
    if (!More)
      return createStringError(std::errc::invalid_argument, "%s",
                               More.error().c_str());
    if (auto Err = S->Db.merge(*More))
      return createStringError(std::errc::invalid_argument, "%s", Err->c_str());
  }
  if (Cfg.Architectures)
    for (const std::string &A : *Cfg.Architectures) {
      auto P = parseArch(A);
      if (!P || A.rfind("sm_", 0) != 0)
        return createStringError(
            std::errc::invalid_argument,
            "%s: not an architecture name (expected sm_NN, sm_NNa or sm_NNf)",
            A.c_str());
      if (!S->Db.lookup(P->name()))
        return createStringError(
            std::errc::invalid_argument,
            "%s: unknown architecture; the capacity database (%s) knows %s",
            A.c_str(), S->Db.origin().c_str(),
            join(S->Db.names(), ", ").c_str());
      S->Archs.push_back(P->name());
    }
  S->Opts.Budget = Cfg.Budget.value_or(0.9);
  S->Opts.Checks = Cfg.Checks.value_or("*");
  if (Cfg.KernelBudgets)
    S->Opts.KernelBudgets = *Cfg.KernelBudgets;
  S->Opts.Registers = Req.Registers;
  if (Cfg.HeaderFilterRegex && !Cfg.HeaderFilterRegex->empty()) {
    S->HeaderFilter = std::make_unique<Regex>(*Cfg.HeaderFilterRegex);
    std::string Why;
    if (!S->HeaderFilter->isValid(Why))
      return createStringError(std::errc::invalid_argument,
                               "header filter '%s': %s",
                               Cfg.HeaderFilterRegex->c_str(), Why.c_str());
  }
  S->WarningsAsErrors = Cfg.WarningsAsErrors.value_or("");
  return S;
}

/// The configuration file that applies to \p File: --config-file, else the
/// nearest one.
std::string configFileFor(const AnalyzeRequest &Req, const Session &S,
                          const std::string &File) {
  if (!Req.ConfigFile.empty())
    return Req.ConfigFile;
  std::string Found = frontend::findConfigFile(sys::path::parent_path(File));
  const auto &MayRead = S.options().MayReadConfig;
  if (!Found.empty() && MayRead && !MayRead(Found)) {
    S.message("warning", "ignored " + Found + ": outside the workspace");
    return "";
  }
  return Found;
}

/// The configuration of the file at \p Path ("": none) under the command
/// line's.
Expected<frontend::Config> configFrom(const AnalyzeRequest &Req,
                                      const std::string &Path) {
  frontend::Config Cfg;
  if (!Path.empty()) {
    auto FromFile = frontend::loadConfigFile(Path);
    if (!FromFile)
      return FromFile.takeError();
    Cfg.overlay(*FromFile);
  }
  if (!Req.ConfigText.empty()) {
    auto Inline =
        frontend::parseConfig(Req.ConfigText, "--config", currentDir());
    if (!Inline)
      return Inline.takeError();
    Cfg.overlay(*Inline);
  }
  Cfg.overlay(Req.Overrides);
  return Cfg;
}

/// The settings of the configuration at \p Path ("": none).
Expected<std::unique_ptr<Settings>> settingsFrom(const AnalyzeRequest &Req,
                                                 const std::string &Path) {
  auto Cfg = configFrom(Req, Path);
  if (!Cfg)
    return Cfg.takeError();
  auto S = makeSettings(*Cfg, Req);
  if (!S)
    return createStringError(std::errc::invalid_argument, "%s%s",
                             Cfg->Origin.empty() ? ""
                                                 : (Cfg->Origin + ": ").c_str(),
                             toString(S.takeError()).c_str());
  return S;
}

} // namespace

Expected<frontend::Config> effectiveConfig(const AnalyzeRequest &Req,
                                           const Session &S,
                                           const std::string &File) {
  return configFrom(Req, configFileFor(Req, S, File));
}

namespace {

/// The one policy pass, after the checks and before anything reads the report;
/// nothing changes the report after it. In order: the project's folder
/// (R.SourceRoot); which findings in headers are shown (the header filter of
/// each unit's configuration, else the project's own headers); NOLINT comments;
/// --warnings-as-errors; each kernel's worst finding.
void applyPolicy(const AnalyzeRequest &Req, const Session &Ses,
                 const std::map<std::string, const Settings *> &UnitSettings,
                 const std::vector<frontend::UnitJob> &UnitJobs,
                 const frontend::ParseEnvironment &Env, Report &R) {
  // Findings in headers follow the header filter of their unit's configuration;
  // without one, those in the project's own headers (under its source folder,
  // not in a folder its command includes with -isystem) are shown and count, as
  // the unit's own do (finalizeReport has made a header's finding one,
  // whichever units include it).
  const std::string Root =
      Req.SourceRoot.empty() ? projectRoot(Req.BuildPath, R) : Req.SourceRoot;
  R.SourceRoot = Root;
  std::map<std::string, std::vector<std::string>> SystemDirs; // by unit file
  for (const frontend::UnitJob &J : UnitJobs) {
    const std::vector<std::string> &A = J.Flags.ClangArgs;
    for (size_t I = 0; I + 1 < A.size(); ++I)
      if (A[I] == "-isystem") {
        SmallString<256> Dir(A[I + 1]);
        sys::fs::make_absolute(J.Command.Directory, Dir);
        sys::path::remove_dots(Dir, /*remove_dot_dot=*/true);
        SystemDirs[J.Command.File].push_back(std::string(Dir));
      }
  }
  auto Under = [](StringRef File, StringRef Dir) {
    return !Dir.empty() && File.starts_with(Dir) &&
           (Dir.ends_with("/") || File.substr(Dir.size()).starts_with("/"));
  };
  size_t Hidden = filterHeaderFindings(R, [&](const Diagnostic &D) {
    auto It = UnitSettings.find(D.TranslationUnit);
    if (It != UnitSettings.end() && It->second->HeaderFilter)
      return It->second->HeaderFilter->match(D.Loc.File);
    // A root of "/" (units with nothing in common) is no project: headers stay
    // hidden.
    if (Root == "/" || !Under(D.Loc.File, Root))
      return false;
    auto Dirs = SystemDirs.find(D.TranslationUnit);
    return Dirs == SystemDirs.end() ||
           std::none_of(
               Dirs->second.begin(), Dirs->second.end(),
               [&](const std::string &Dir) { return Under(D.Loc.File, Dir); });
  });
  if (Hidden && !Ses.options().Quiet)
    Ses.message("note", std::to_string(Hidden) +
                            " finding(s) in headers outside the " +
                            "project (" + Root +
                            ") not shown (use --header-filter=<regex> to " +
                            "show them)");

  // NOLINT comments.
  applySuppressions(R, [&](const std::string &File) {
    return frontend::readSource(Env, File);
  });

  // --warnings-as-errors, per unit.
  for (Diagnostic &D : R.Diagnostics) {
    auto It = UnitSettings.find(D.TranslationUnit);
    if (It == UnitSettings.end() || It->second->WarningsAsErrors.empty())
      continue;
    if (D.Level == Severity::Warning &&
        GlobList(It->second->WarningsAsErrors).contains(D.Check)) {
      D.Level = Severity::Error;
      D.PromotedToError = true;
    }
  }
  // The table's marks follow what is left: a NOLINT'd or hidden finding marks
  // nothing.
  markWorstFindings(R);
}

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

AnalyzeResult analyze(const AnalyzeRequest &Req, Session &Ses) {
  const Session::Options &SO = Ses.options();
  AnalyzeResult Result;
  Report &R = Result.R;

  frontend::ParseEnvironment Env;
  std::string ToolkitError;
  if (!Req.NoCudaToolkit)
    Env.Toolkit = frontend::findCudaToolkit(Req.CudaPath, ToolkitError);
  if (!ToolkitError.empty()) {
    usageError(Req, Result, ToolkitError);
    return Result;
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

  std::vector<frontend::CompileCommand> Commands =
      selectCommands(Req, R, Result.Failed);
  if (Req.Shard) {
    // A deterministic split: by the sorted position of each unit's file.
    std::stable_sort(
        Commands.begin(), Commands.end(),
        [](const frontend::CompileCommand &A,
           const frontend::CompileCommand &B) { return A.File < B.File; });
    std::vector<frontend::CompileCommand> Mine;
    for (size_t I = 0; I < Commands.size(); ++I)
      if (I % Req.Shard->second == Req.Shard->first - 1)
        Mine.push_back(std::move(Commands[I]));
    Commands = std::move(Mine);
  }

  // Settings per configuration, and the jobs of each command under its
  // settings. What applies to every unit (the command line, --config,
  // --config-file) stops the run when it is wrong; a configuration file found
  // above some sources only stops their units.
  std::map<std::string, std::unique_ptr<Settings>>
      SettingsOf;                                       // by configuration file
  std::map<std::string, std::string> BrokenConfig;      // its error, by file
  std::map<std::string, const Settings *> UnitSettings; // by unit file
  std::vector<frontend::UnitJob> UnitJobs;
  {
    auto Global = settingsFrom(Req, Req.ConfigFile);
    if (!Global) {
      usageError(Req, Result, toString(Global.takeError()));
      return Result;
    }
    SettingsOf.emplace(Req.ConfigFile, std::move(*Global));
  }
  for (const frontend::CompileCommand &C : Commands) {
    std::string Key = configFileFor(Req, Ses, C.File);
    auto It = SettingsOf.find(Key);
    if (It == SettingsOf.end() && !BrokenConfig.count(Key)) {
      if (auto S = settingsFrom(Req, Key)) {
        It = SettingsOf.emplace(Key, std::move(*S)).first;
      } else {
        BrokenConfig[Key] = toString(S.takeError());
        Ses.message("error", BrokenConfig[Key]); // once per file, with its line
      }
    }
    if (It == SettingsOf.end()) {
      R.ToolMessages.push_back(inputProblem(
          C.File, "'" + C.File + "' not analysed: its configuration " + Key +
                      " is invalid"));
      Result.Failed = true;
      continue;
    }
    UnitSettings[C.File] = It->second.get();
    for (frontend::UnitJob &J : frontend::planJobs({C}, It->second->Archs))
      UnitJobs.push_back(std::move(J));
  }

  // Flags tilefit dropped: one warning each for the whole run.
  std::set<std::string> Unknown, Refused, UnknownArchs, Warnings;
  for (const frontend::UnitJob &J : UnitJobs) {
    Unknown.insert(J.Flags.Unknown.begin(), J.Flags.Unknown.end());
    Warnings.insert(J.Flags.Warnings.begin(), J.Flags.Warnings.end());
    if (J.Flags.NativeArch && UnitSettings[J.Command.File]->Archs.empty())
      Warnings.insert(frontend::nativeArchWarning());
    Refused.insert(J.Flags.Refused.begin(), J.Flags.Refused.end());
    if (!UnitSettings[J.Command.File]->Db.lookup(J.Target.Real))
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
  for (const std::string &A : UnknownArchs)
    Ses.message(
        "warning",
        A + " is not in the capacity database; its kernels are reported "
            "without limits or checks");
  if (SO.ShowCommands)
    for (const frontend::UnitJob &J : UnitJobs)
      errs() << join(frontend::parseCommandLine(J, Env), " ") << "\n";

  unsigned Threads = Req.Threads
                         ? Req.Threads
                         : llvm::hardware_concurrency().compute_thread_count();
  frontend::ProgressFn Progress;
  if (SO.Progress && UnitJobs.size() > 1)
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
  // Each unit analysed as its facts become final, into its own part of the
  // report: the run holds the facts of the units in flight and the parts, not
  // every unit's facts; the parts joined in job order are the report of the
  // units analysed one after another.
  std::vector<Report> Parts(UnitJobs.size());
  frontend::analyzeAll(
      UnitJobs, Env, Threads, Progress,
      [&](size_t I, TranslationUnitFacts &&TU) {
        const Settings &S = *UnitSettings.at(UnitJobs[I].Command.File);
        analyzeUnit(TU, S.Db, S.Opts, Parts[I]);
        // A unit with errors is analysed all the same; it fails the run unless
        // the configuration (--allow-parse-errors, AllowParseErrors) accepts
        // it.
        const bool Allowed =
            TU.Partial && S.Cfg.AllowParseErrors.value_or(false);
        if (Allowed)
          Parts[I].Units.back().ErrorsAllowed = true;
        Result.Failed |= TU.Failed || (TU.Partial && !Allowed);
#ifdef __GLIBC__
        // The parse's memory back to the system before the next one: what
        // glibc keeps of it would add up over a project.
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
  if (Ses.Cancelled && *Ses.Cancelled) {
    Result.Cancelled = true;
    return Result;
  }
  for (Report &P : Parts) {
    auto Append = [](auto &To, auto &From) {
      To.insert(To.end(), std::make_move_iterator(From.begin()),
                std::make_move_iterator(From.end()));
    };
    Append(R.Units, P.Units);
    Append(R.Kernels, P.Kernels);
    Append(R.Diagnostics, P.Diagnostics);
  }
  Parts.clear();
  // The program-wide checks follow the checks of the first unit's
  // configuration.
  if (!UnitJobs.empty())
    checkProgram(UnitSettings.at(UnitJobs.front().Command.File)->Opts, R);
  finalizeReport(R);

  applyPolicy(Req, Ses, UnitSettings, UnitJobs, Env, R);
  return Result;
}

std::string projectRoot(const std::string &BuildPath, const Report &R) {
  if (!BuildPath.empty()) {
    SmallString<256> Cache(BuildPath);
    if (!sys::fs::is_directory(Cache))
      Cache.truncate(sys::path::parent_path(Cache).size()); // Not from itself.
    sys::path::append(Cache, "CMakeCache.txt");
    if (auto Buf = MemoryBuffer::getFile(Cache)) {
      StringRef Text = (*Buf)->getBuffer();
      for (StringRef Key :
           {"CMAKE_HOME_DIRECTORY:INTERNAL=", "CMAKE_HOME_DIRECTORY:STATIC="}) {
        size_t P = Text.find(Key);
        if (P != StringRef::npos)
          return Text.substr(P + Key.size()).split('\n').first.rtrim().str();
      }
    }
  }
  // The deepest folder holding every unit's file.
  std::string Common;
  bool First = true;
  for (const UnitReport &U : R.Units) {
    std::string Dir = sys::path::parent_path(U.File).str();
    if (First) {
      Common = Dir;
      First = false;
      continue;
    }
    while (!Common.empty() &&
           !(Dir == Common || StringRef(Dir).starts_with(Common + "/")))
      Common = sys::path::parent_path(Common).str();
  }
  if (!Common.empty())
    return Common;
  SmallString<256> Cwd;
  sys::fs::current_path(Cwd);
  return std::string(Cwd);
}

} // namespace driver
} // namespace tilefit
