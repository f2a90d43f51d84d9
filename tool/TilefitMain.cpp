//===- TilefitMain.cpp - Options and the run, in one place ----------------===//
//
// Every command-line option lives in this file, in one category, as in clang-tidy.
//
//===----------------------------------------------------------------------===//
#include "TilefitMain.h"

#include "tilefit/frontend/Analyzer.h"
#include "tilefit/frontend/CompileCommand.h"
#include "tilefit/frontend/Toolkit.h"
#include "tilefit/model/Analysis.h"
#include "tilefit/model/Arch.h"
#include "tilefit/model/Capacity.h"
#include "tilefit/model/Checks.h"
#include "tilefit/reporters/JsonReporter.h"
#include "tilefit/reporters/TextReporter.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"

#include <iostream>
#include <map>
#include <set>

using namespace llvm;

namespace tilefit {
namespace tool {
namespace {

cl::OptionCategory Category("tilefit options");

const char Overview[] =
    "tilefit: static shared-memory footprint of every CUDA kernel, per GPU architecture,\n"
    "as ptxas counts it, without compiling and without a GPU.\n\n"
    "  tilefit [options] <source>... [-- <compiler arguments>]\n"
    "  tilefit -p <build-dir> [<source>...]\n\n"
    "Flags for each source come from the compilation database (-p, or a\n"
    "compile_commands.json found above the source), or from the arguments after '--'.\n";

cl::list<std::string> Sources(cl::Positional, cl::desc("<source>..."), cl::cat(Category));

cl::opt<std::string> BuildPath("p", cl::desc("Build folder holding compile_commands.json (or the file itself)"),
                               cl::value_desc("build-dir"), cl::cat(Category));

cl::list<std::string> Archs("arch", cl::CommaSeparated,
                            cl::desc("Architectures to analyse (sm_80,sm_90,...); default: the\n"
                                     "command's own (--cuda-gpu-arch, --offload-arch, nvcc's\n"
                                     "-arch/-gencode), else sm_75 as nvcc 13"),
                            cl::value_desc("sm_XX,..."), cl::cat(Category));

cl::opt<std::string> Format("format", cl::desc("Output format: text (default) or json"),
                            cl::init("text"), cl::value_desc("text|json"), cl::cat(Category));

cl::list<std::string> CapacityDb("capacity-db",
                                 cl::desc("A capacity database that extends the built-in one\n"
                                          "(or replaces it, with \"replace\": true)"),
                                 cl::value_desc("file"), cl::cat(Category));

cl::opt<std::string> CudaPath("cuda-path", cl::desc("CUDA toolkit to parse with"),
                              cl::value_desc("dir"), cl::cat(Category));

cl::opt<bool> NoCudaToolkit("no-cuda-toolkit",
                            cl::desc("Parse with tilefit's built-in CUDA prelude instead of a\n"
                                     "toolkit (plain kernels only; faster)"),
                            cl::cat(Category));

cl::opt<double> Budget("budget",
                       cl::desc("tilefit-budget warns above this fraction of the per-block\n"
                                "opt-in maximum (default 0.9)"),
                       cl::init(0.9), cl::cat(Category));

cl::opt<unsigned> Registers("registers",
                            cl::desc("Registers per thread to assume for occupancy (default: the\n"
                                     "command's -maxrregcount; else registers do not limit it)"),
                            cl::init(0), cl::value_desc("n"), cl::cat(Category));

cl::opt<unsigned> Jobs("j", cl::desc("Parse this many translation units at once (default: all cores)"),
                       cl::init(0), cl::value_desc("n"), cl::cat(Category));

cl::opt<std::string> HeaderFilter(
    "header-filter",
    cl::desc("Show findings located in headers whose path matches this regular expression\n"
             "(findings in the translation unit's own file are always shown), as clang-tidy"),
    cl::value_desc("regex"), cl::cat(Category));

cl::opt<bool> ForceProgress("progress", cl::desc("Show progress on stderr even when it is not a terminal"),
                            cl::cat(Category));
cl::opt<bool> Quiet("quiet", cl::desc("No progress and no summary of suppressed findings"),
                    cl::cat(Category));

cl::opt<bool> ShowCommands("show-parse-commands",
                           cl::desc("Print the Clang command line of every parse to stderr"),
                           cl::cat(Category));

cl::opt<bool> ListChecks("list-checks", cl::desc("List tilefit's checks and exit"),
                         cl::cat(Category));

void printVersion(raw_ostream &OS) { OS << "tilefit version " << TILEFIT_VERSION << "\n"; }

/// tilefit's own messages, on stderr, in clang's voice.
void toolMessage(const char *Level, const Twine &Msg) {
  errs() << "tilefit: " << Level << ": " << Msg << "\n";
}

std::string shareDir(const char *Argv0) {
  static int Anchor;
  std::string Exe = sys::fs::getMainExecutable(Argv0, &Anchor);
  SmallString<256> P(sys::path::parent_path(sys::path::parent_path(Exe)));
  sys::path::append(P, "share", "tilefit");
  return std::string(P);
}

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

/// Whether the database file \p Entry matches the source \p Source named on the command line:
/// the same absolute path, or \p Source a path suffix of it (as clang-tidy accepts).
bool sourceMatches(const std::string &Entry, const std::string &Source) {
  if (Entry == absolutePath(Source))
    return true;
  StringRef E = Entry, S = Source;
  return E.ends_with(S) && (E.size() == S.size() || E[E.size() - S.size() - 1] == '/');
}

/// Chooses the compile commands to analyse; reports sources it cannot place.
std::vector<frontend::CompileCommand> selectCommands(const std::vector<std::string> &Extra,
                                                     bool HaveDashDash, Report &R, bool &Failed) {
  std::vector<frontend::CompileCommand> Out;
  auto Fail = [&](const std::string &File, const std::string &Msg) {
    Diagnostic D;
    D.Level = Severity::Error;
    D.Check = std::string(checkInfo(CheckId::Input).Name);
    D.Message = Msg;
    D.Loc.File = File;
    R.ToolMessages.push_back(std::move(D));
    Failed = true;
  };
  auto Adhoc = [&](const std::string &Src, const std::vector<std::string> &Args) {
    frontend::CompileCommand C;
    C.Directory = currentDir();
    C.File = absolutePath(Src);
    C.Arguments.push_back("clang++");
    C.Arguments.insert(C.Arguments.end(), Args.begin(), Args.end());
    C.Arguments.push_back(C.File);
    C.Origin = "command line";
    return C;
  };

  if (HaveDashDash) {
    for (const std::string &S : Sources)
      Out.push_back(Adhoc(S, Extra));
    return Out;
  }

  std::string DbPath = BuildPath;
  if (DbPath.empty() && !Sources.empty())
    DbPath = frontend::findCompilationDatabaseAbove(
        sys::path::parent_path(absolutePath(Sources.front())));
  if (DbPath.empty()) {
    for (const std::string &S : Sources)
      Out.push_back(Adhoc(S, {}));
    return Out;
  }

  std::vector<std::string> Warnings;
  auto Db = frontend::loadCompilationDatabase(DbPath, Warnings);
  for (const std::string &W : Warnings)
    toolMessage("warning", W);
  if (!Db) {
    toolMessage("error", toString(Db.takeError()));
    Failed = true;
    return Out;
  }
  std::set<std::pair<std::string, std::vector<std::string>>> Seen;
  auto Take = [&](frontend::CompileCommand C) {
    if (llvm::Error E = frontend::expandResponseFiles(C)) {
      Fail(C.File, toString(std::move(E)));
      return;
    }
    // Several entries for one file with the same flags (one per build configuration that did
    // not change them) are one unit; the output file does not matter here.
    std::vector<std::string> Key;
    for (size_t I = 0; I < C.Arguments.size(); ++I) {
      if (C.Arguments[I] == "-o") {
        ++I;
        continue;
      }
      Key.push_back(C.Arguments[I]);
    }
    if (Seen.insert({C.File, Key}).second)
      Out.push_back(C);
  };
  if (Sources.empty()) {
    // Every CUDA entry of the database; others (host C++) quietly skipped.
    for (const frontend::CompileCommand &C : *Db)
      {
        frontend::CompileCommand Expanded = C;
        if (llvm::Error E = frontend::expandResponseFiles(Expanded)) {
          Fail(C.File, toString(std::move(E)));
          continue;
        }
        if (frontend::translateCommand(Expanded).IsCuda)
          Take(Expanded);
      }
    return Out;
  }
  for (const std::string &S : Sources) {
    bool Found = false;
    for (const frontend::CompileCommand &C : *Db)
      if (sourceMatches(C.File, S)) {
        Take(C);
        Found = true;
      }
    if (!Found) {
      if (!BuildPath.empty())
        Fail(absolutePath(S), "no compile command for '" + S + "' in " + DbPath);
      else
        Out.push_back(Adhoc(S, {}));
    }
  }
  return Out;
}

} // namespace

int tilefitMain(int argc, const char **argv) {
  // Everything after "--" is compiler arguments, as in clang-tidy.
  std::vector<const char *> Own;
  std::vector<std::string> Extra;
  bool HaveDashDash = false;
  for (int I = 0; I < argc; ++I) {
    if (!HaveDashDash && I > 0 && StringRef(argv[I]) == "--") {
      HaveDashDash = true;
      continue;
    }
    if (HaveDashDash)
      Extra.push_back(argv[I]);
    else
      Own.push_back(argv[I]);
  }

  // A crash inside Clang while parsing one unit is contained to that unit.
  llvm::CrashRecoveryContext::Enable();
  cl::HideUnrelatedOptions(Category);
  cl::SetVersionPrinter(printVersion);
  std::string ParseErrors;
  raw_string_ostream ErrOS(ParseErrors);
  if (!cl::ParseCommandLineOptions(static_cast<int>(Own.size()), Own.data(), Overview, &ErrOS)) {
    ErrOS.flush();
    errs() << ParseErrors;
    return ExitFailure;
  }

  if (ListChecks) {
    for (const CheckInfo &C : allChecks())
      outs() << C.Name << " (" << severityName(C.DefaultSeverity) << "): " << C.Summary << "\n";
    return ExitOk;
  }
  if (!HeaderFilter.empty()) {
    std::string RegexError;
    if (!llvm::Regex(HeaderFilter).isValid(RegexError)) {
      toolMessage("error", "--header-filter=" + HeaderFilter + ": " + RegexError);
      return ExitFailure;
    }
  }
  if (Format != "text" && Format != "json") {
    toolMessage("error", "--format=" + Format + ": expected text or json");
    return ExitFailure;
  }
  if (Registers > 255) {
    toolMessage("error", "--registers=" + std::to_string(Registers) +
                             ": a thread has at most 255 registers");
    return ExitFailure;
  }
  if (!(Budget > 0 && Budget <= 1)) {
    toolMessage("error", "--budget=" + std::to_string(Budget) + ": expected a fraction in (0, 1]");
    return ExitFailure;
  }
  if (Sources.empty() && BuildPath.empty()) {
    toolMessage("error", "no input: name sources, or a build folder with -p (see --help)");
    return ExitFailure;
  }

  // The capacity database: the built-in one, then every --capacity-db over it.
  const std::string Share = shareDir(argv[0]);
  SmallString<256> BuiltinDb(Share);
  sys::path::append(BuiltinDb, "capacity.json");
  auto Db = CapacityDatabase::load(std::string(BuiltinDb));
  if (!Db) {
    toolMessage("error", Db.error());
    return ExitFailure;
  }
  for (const std::string &Extra : CapacityDb) {
    auto More = CapacityDatabase::load(Extra);
    if (!More) {
      toolMessage("error", More.error());
      return ExitFailure;
    }
    if (auto Err = Db->merge(*More)) {
      toolMessage("error", *Err);
      return ExitFailure;
    }
  }
  std::vector<std::string> ArchOverride;
  for (const std::string &A : Archs) {
    auto P = parseArch(A);
    if (!P || A.rfind("sm_", 0) != 0) {
      toolMessage("error", "--arch=" + A + ": not an architecture name (expected sm_NN, sm_NNa or sm_NNf)");
      return ExitFailure;
    }
    if (!Db->lookup(P->name())) {
      toolMessage("error", "--arch=" + A + ": unknown architecture; the capacity database (" +
                               Db->origin() + ") knows " + llvm::join(Db->names(), ", "));
      return ExitFailure;
    }
    ArchOverride.push_back(P->name());
  }

  frontend::ParseEnvironment Env;
  std::string ToolkitError;
  if (!NoCudaToolkit)
    Env.Toolkit = frontend::findCudaToolkit(CudaPath, ToolkitError);
  if (!ToolkitError.empty()) {
    toolMessage("error", ToolkitError);
    return ExitFailure;
  }
  if (NoCudaToolkit)
    toolMessage("note", "--no-cuda-toolkit: using tilefit's built-in CUDA prelude: plain "
                        "kernels are analysed, sources that include CUDA headers will not parse");
  else if (!Env.Toolkit.found())
    toolMessage("note", "no CUDA toolkit found (looked in " + llvm::join(Env.Toolkit.Searched, ", ") +
                            "); using tilefit's built-in CUDA prelude: plain kernels are "
                            "analysed, sources that include CUDA headers will not parse");
  Env.ResourceInclude = Share + "/include";
  Env.ClangResourceDir = TILEFIT_CLANG_RESOURCE_DIR;

  Report R;
  bool Failed = false;
  std::vector<frontend::CompileCommand> Commands = selectCommands(Extra, HaveDashDash, R, Failed);
  std::vector<frontend::UnitJob> UnitJobs = frontend::planJobs(Commands, ArchOverride);

  // Flags tilefit dropped: one warning each for the whole run.
  std::set<std::string> Unknown, Refused, UnknownArchs, Warnings;
  for (const frontend::UnitJob &J : UnitJobs) {
    Unknown.insert(J.Flags.Unknown.begin(), J.Flags.Unknown.end());
    Warnings.insert(J.Flags.Warnings.begin(), J.Flags.Warnings.end());
    Refused.insert(J.Flags.Refused.begin(), J.Flags.Refused.end());
    if (!Db->lookup(J.Target.Real))
      UnknownArchs.insert(J.Target.Real);
  }
  if (!Unknown.empty())
    toolMessage("warning", "ignored nvcc flags tilefit does not know: " +
                               llvm::join(std::vector<std::string>(Unknown.begin(), Unknown.end()), " "));
  if (!Refused.empty())
    toolMessage("warning", "ignored flags that would load code into tilefit: " +
                               llvm::join(std::vector<std::string>(Refused.begin(), Refused.end()), " "));
  for (const std::string &W : Warnings)
    toolMessage("warning", W);
  for (const std::string &A : UnknownArchs)
    toolMessage("warning", A + " is not in the capacity database; its kernels are reported "
                               "without limits or checks");
  if (ShowCommands)
    for (const frontend::UnitJob &J : UnitJobs)
      errs() << llvm::join(frontend::parseCommandLine(J, Env), " ") << "\n";

  unsigned Threads = Jobs ? Jobs.getValue() : llvm::hardware_concurrency().compute_thread_count();
  // Progress while the run is long, where someone watches: never in CI logs unless asked.
  const bool ShowProgress =
      !Quiet && (ForceProgress || (sys::Process::StandardErrIsDisplayed() && UnitJobs.size() > 1));
  frontend::ProgressFn Progress;
  if (ShowProgress)
    Progress = [](size_t Done, size_t Total, const frontend::UnitJob &J) {
      errs() << "\r[" << Done << "/" << Total << "] " << sys::path::filename(J.Command.File) << " "
             << J.Target.Real << "\x1b[K";
      if (Done == Total)
        errs() << "\n";
    };
  std::vector<TranslationUnitFacts> Facts =
      frontend::analyzeAll(UnitJobs, Env, Threads, Progress);

  AnalysisOptions Opts;
  Opts.Budget = Budget;
  if (Registers)
    Opts.Registers = Registers.getValue();
  for (const TranslationUnitFacts &TU : Facts) {
    analyzeUnit(TU, *Db, Opts, R);
    Failed |= TU.Failed;
  }
  finalizeReport(R);
  {
    llvm::Regex Filter(HeaderFilter.empty() ? "^$" : HeaderFilter.getValue());
    size_t Dropped = filterHeaderFindings(
        R, [&](const std::string &File) { return !HeaderFilter.empty() && Filter.match(File); });
    if (Dropped && !Quiet)
      toolMessage("note", std::to_string(Dropped) + " finding(s) in headers not shown (use " +
                              "--header-filter=<regex> to show them)");
  }

  if (Format == "json") {
    ToolInfo Info;
    Info.Version = TILEFIT_VERSION;
    renderJson(R, Info, std::cout);
  } else {
    SourceLines Lines;
    renderText(R, Lines, std::cout);
  }
  std::cout.flush();

  if (Failed)
    return ExitFailure;
  auto Worst = worstSeverity(R);
  return Worst && *Worst == Severity::Error ? ExitFindings : ExitOk;
}

} // namespace tool
} // namespace tilefit
