//===- Subcommands.cpp ----------------------------------------------------===//
#include "Subcommands.h"

#include "tilefit/driver/Analyze.h"
#include "tilefit/lsp/Server.h"

#include "tilefit/frontend/CommandTranslation.h"
#include "tilefit/model/ReportJson.h"
#include "tilefit/reporters/DiffReporter.h"
#include "tilefit/reporters/TextReporter.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>

using namespace llvm;

namespace tilefit {
namespace tool {
using namespace driver;
namespace {

void toolMessage(const char *Level, const Twine &Msg) {
  errs() << "tilefit: " << Level << ": " << Msg << "\n";
}

/// The CMake build folder the launcher runs in (compiles run in subfolders of
/// it).
std::string findBuildFolder(std::string Dir) {
  while (!Dir.empty()) {
    SmallString<256> Cache(Dir);
    sys::path::append(Cache, "CMakeCache.txt");
    if (sys::fs::exists(Cache))
      return Dir;
    std::string Parent = sys::path::parent_path(Dir).str();
    if (Parent == Dir)
      break;
    Dir = Parent;
  }
  return "";
}

} // namespace

int runDiff(const std::vector<std::string> &Inputs, OutputFormat Format,
            const std::optional<GrowthThreshold> &Threshold,
            const std::string &OutputFile) {
  if (Inputs.size() != 2) {
    toolMessage("error",
                "tilefit diff takes two JSON reports: OLD.json NEW.json");
    return 2;
  }
  auto Old = loadJsonReport(Inputs[0]);
  auto New = loadJsonReport(Inputs[1]);
  for (auto *R : {&Old, &New})
    if (!*R) {
      toolMessage("error", R->error());
      return 2;
    }
  std::vector<KernelDelta> Deltas = diffReports(*Old, *New, Threshold);
  DiffFormat F = Format == OutputFormat::Json       ? DiffFormat::Json
                 : Format == OutputFormat::Markdown ? DiffFormat::Markdown
                                                    : DiffFormat::Text;
  if (Format == OutputFormat::Sarif) {
    toolMessage("error", "tilefit diff writes text, json or markdown");
    return 2;
  }
  if (OutputFile.empty()) {
    renderDiff(Deltas, F, std::cout);
  } else {
    const std::string Problem = writeFile(
        OutputFile, [&](std::ostream &Out) { renderDiff(Deltas, F, Out); });
    if (!Problem.empty()) {
      toolMessage("error",
                  "--output=" + OutputFile + ": cannot write: " + Problem);
      return 2;
    }
  }
  for (const KernelDelta &D : Deltas)
    if (D.OverThreshold)
      return 1;
  return 0;
}

std::optional<Report> runMerge(const std::vector<std::string> &Inputs) {
  if (Inputs.empty()) {
    toolMessage("error", "tilefit merge takes one or more JSON reports");
    return std::nullopt;
  }
  std::vector<Report> Parts;
  for (const std::string &In : Inputs) {
    auto R = loadJsonReport(In);
    if (!R) {
      toolMessage("error", R.error());
      return std::nullopt;
    }
    Parts.push_back(std::move(*R));
  }
  return mergeReports(std::move(Parts));
}

namespace {

/// `tilefit-launch --help`.
void printLauncherHelp() {
  llvm::outs()
      << "tilefit-launch: the compiler launcher. Analyses each CUDA unit "
         "the build compiles\n"
         "(`-c` or `-dc` with a .cu source), writes OBJECT.tilefit.json "
         "beside its object,\n"
         "then runs the compiler unchanged; its exit status is the "
         "compiler's.\n\n"
         "USAGE: tilefit-launch <compiler> <arguments>...\n"
         "       tilefit --launcher -- <compiler> <arguments>...\n\n"
         "With CMake: cmake -DCMAKE_CUDA_COMPILER_LAUNCHER=tilefit-launch "
         "...\n"
         "Then `tilefit merge $(find build -name '*.tilefit.json')` gives "
         "one report.\n";
}

/// The unit a compiler command compiles: `-c` (or `-dc`) with a source
/// argument, and its object from `-o`.
struct LaunchedUnit {
  std::string Source, Object;
  bool CompileOnly = false;
};

LaunchedUnit launchedUnit(const std::vector<std::string> &Compiler) {
  LaunchedUnit U;
  for (size_t I = 1; I < Compiler.size(); ++I) {
    StringRef A = Compiler[I];
    if (A == "-c" || A == "--compile" || A == "-dc" || A == "--device-c")
      U.CompileOnly = true;
    else if ((A == "-o" || A == "--output-file") && I + 1 < Compiler.size())
      U.Object = Compiler[++I];
    else if (A.starts_with("--output-file="))
      U.Object = A.drop_front(14).str();
    else if (!A.starts_with("-") &&
             (A.ends_with(".cu") || A.ends_with(".cpp") || A.ends_with(".cc")))
      U.Source = A.str();
  }
  return U;
}

/// Analyses \p U as \p Compiler compiles it: writes OBJECT.tilefit.json and
/// prints the findings on stderr, as compiler diagnostics. True when a finding
/// is at or above the level TILEFIT_LAUNCH_FAIL_ON names.
bool analyseLaunchedUnit(const LaunchedUnit &U,
                         const std::vector<std::string> &Compiler,
                         const SmallString<256> &Cwd,
                         const std::string &ShareDir) {
  frontend::CompileCommand C;
  C.Directory = std::string(Cwd);
  SmallString<256> Abs(U.Source);
  sys::fs::make_absolute(Cwd, Abs);
  sys::path::remove_dots(Abs, true);
  C.File = std::string(Abs);
  C.Arguments = Compiler;
  C.Origin = "compiler launcher";
  if (!frontend::translateCommand(C).IsCuda)
    return false;
  AnalyzeRequest Req;
  Req.Commands.push_back(C);
  // The project root as CMake knows it: the build folder is the launcher's
  // caller's.
  Req.BuildPath = findBuildFolder(std::string(Cwd));
  Req.ShareDir = ShareDir;
  Req.Threads = 1;
  driver::Session::Options Quiet;
  Quiet.Quiet = true;
  driver::Session Session(std::move(Quiet));
  AnalyzeResult Result = analyze(Req, Session);
  if (!Result.UsageError.empty()) {
    toolMessage("warning", "not analysed: " + Result.UsageError);
    return false;
  }
  SmallString<256> ReportPath(
      U.Object.empty() ? sys::path::filename(U.Source).str() : U.Object);
  sys::fs::make_absolute(Cwd, ReportPath);
  ReportPath += ".tilefit.json";
  ToolInfo Info;
  Info.Version = TILEFIT_VERSION;
  const std::string Problem =
      writeFile(std::string(ReportPath),
                [&](std::ostream &Out) { renderJson(Result.R, Info, Out); });
  if (!Problem.empty())
    toolMessage("warning", "cannot write " + ReportPath + ": " + Problem);
  // Where people look during a build: the findings as the compiler's own
  // warnings and errors.
  SourceLines Lines;
  for (const Diagnostic &D : Result.R.Diagnostics)
    renderDiagnostic(D, Lines, std::cerr);
  // TILEFIT_LAUNCH_FAIL_ON: the level of finding that fails the compile;
  // unset, the launcher never fails a build of its own accord.
  const char *FailOn = std::getenv("TILEFIT_LAUNCH_FAIL_ON");
  if (!FailOn || !*FailOn)
    return false;
  std::optional<Severity> Level = severityNamed(FailOn);
  if (!Level) {
    toolMessage("warning", std::string("TILEFIT_LAUNCH_FAIL_ON=") + FailOn +
                               ": expected error, warning or note; ignored");
    return false;
  }
  return exitStatus(Result.R, false, *Level) == 1;
}

} // namespace

int runLauncher(const char *Argv0, const std::vector<std::string> &Compiler,
                const std::string &ShareDir) {
  (void)Argv0;
  // Its own --help and --version, not a compiler named so.
  if (Compiler.size() == 1 &&
      llvm::is_contained({"--help", "-help", "-h"}, Compiler.front())) {
    printLauncherHelp();
    return 0;
  }
  if (Compiler.size() == 1 && Compiler.front() == "--version") {
    llvm::outs() << "tilefit-launch " << TILEFIT_VERSION << "\n";
    return 0;
  }
  if (Compiler.empty()) {
    toolMessage(
        "error",
        "the launcher needs a compiler command: tilefit-launch nvcc ARGS...");
    return 2;
  }
  SmallString<256> Cwd;
  sys::fs::current_path(Cwd);
  const LaunchedUnit U = launchedUnit(Compiler);
  const bool FindingsFail = U.CompileOnly && !U.Source.empty() &&
                            analyseLaunchedUnit(U, Compiler, Cwd, ShareDir);
  // Then the compiler, unchanged: the build's own command, not one taken from a
  // database.
  auto Program = sys::findProgramByName(Compiler.front());
  std::string Path = Program ? *Program : Compiler.front();
  std::vector<StringRef> Args(Compiler.begin(), Compiler.end());
  std::string Error;
  int Status = sys::ExecuteAndWait(Path, Args, std::nullopt, {}, 0, 0, &Error);
  if (Status < 0) {
    toolMessage("error", "cannot run " + Compiler.front() + ": " + Error);
    return 127;
  }
  if (Status == 0 && FindingsFail) {
    // The object is removed so that the next build compiles the unit again.
    if (!U.Object.empty()) {
      SmallString<256> Obj(U.Object);
      sys::fs::make_absolute(Cwd, Obj);
      sys::fs::remove(Obj);
    }
    toolMessage("error", "'" + U.Source +
                             "' has findings at or above the level "
                             "TILEFIT_LAUNCH_FAIL_ON names; the compile fails");
    return 1;
  }
  return Status;
}

int runLanguageServer(driver::AnalyzeRequest Base,
                      driver::Session::Options SessionBase,
                      const std::string &CompileCommandsDir,
                      unsigned DebounceMs, bool Preambles) {
  lsp::ServerOptions Opts;
  Opts.Preambles = Preambles;
  Opts.Base = std::move(Base);
  Opts.SessionBase = std::move(SessionBase);
  Opts.CompileCommandsDir = CompileCommandsDir;
  Opts.DebounceMs = DebounceMs;
  Opts.DocsUri =
      std::string(TILEFIT_INFORMATION_URI) + "/blob/main/docs/checks.md";
  Opts.Version = TILEFIT_VERSION;
  // stdout carries the protocol only; tilefit's own messages go to the client's
  // log.
  std::ios::sync_with_stdio(false);
  // Reading must not flush stdout: the worker writes to it (under the
  // transport's lock) while the message thread waits for input.
  std::cin.tie(nullptr);
  lsp::StreamTransport T(std::cin, std::cout);
  lsp::Server S(T, std::move(Opts));
  return S.run();
}

} // namespace tool
} // namespace tilefit
