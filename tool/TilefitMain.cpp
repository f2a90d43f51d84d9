//===- TilefitMain.cpp - Options and the run, in one place ----------------===//
//
// Every option of the analysis, the language server, diff and merge lives in
// this file, in one category, as in clang-tidy; `tilefit calc` declares its own
// in Calc.cpp. That is why the file is longer than the project's 700 lines:
// some 270 of them are the options' declarations and help, which `--help`
// reads in this order (as clang-tidy's ClangTidyMain.cpp keeps its own), and
// each function that reads them is short.
//
//===----------------------------------------------------------------------===//
#include "TilefitMain.h"

#include "Calc.h"
#include "Output.h"
#include "tilefit/reporters/KernelNameWidth.h"

#include "Subcommands.h"
#include "tilefit/driver/Analyze.h"
#include "tilefit/frontend/ResultCache.h"

#include "tilefit/model/Analysis.h"
#include "tilefit/model/Checks.h"
#include "tilefit/model/Diff.h"
#include "tilefit/model/ReportJson.h"
#include "tilefit/reporters/DiffReporter.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

using namespace llvm;

namespace tilefit {
namespace tool {
using namespace driver;
namespace {

cl::OptionCategory Category("tilefit options");

// `tilefit diff OLD.json NEW.json` and `tilefit merge A.json B.json ...`.
cl::SubCommand DiffCommand(
    "diff", "Compare two JSON reports: kernels added, removed, grown, shrunk");
cl::SubCommand
    MergeCommand("merge",
                 "Combine JSON reports (shards, launcher reports) into one");
// `tilefit lsp` becomes --lsp before the options are read; listed here so that
// --help names it.
cl::SubCommand
    LspCommand("lsp",
               "The language server (LSP over stdin and stdout): the same "
               "diagnostics and footprints in an editor");
cl::list<std::string> DiffInputs(cl::Positional,
                                 cl::desc("<old.json> <new.json>"),
                                 cl::sub(DiffCommand), cl::cat(Category));
cl::list<std::string> MergeInputs(cl::Positional, cl::desc("<report.json>..."),
                                  cl::sub(MergeCommand), cl::cat(Category));

const char Overview[] =
    "tilefit: static shared-memory footprint of every CUDA kernel, per GPU "
    "architecture,\n"
    "as ptxas counts it, without compiling and without a GPU.\n\n"
    "  tilefit [options] <source>... [-- <compiler arguments>]\n"
    "  tilefit -p <build-dir> [<source>...]\n\n"
    "Flags for each source come from the compilation database (-p, or a\n"
    "compile_commands.json found above the source), or from the arguments "
    "after '--'.\n";

cl::list<std::string> Sources(cl::Positional, cl::desc("<source>..."),
                              cl::cat(Category));

cl::opt<std::string> BuildPath(
    "p",
    cl::desc("Build folder holding compile_commands.json (or the file itself)"),
    cl::value_desc("build-dir"), cl::cat(Category));

cl::list<std::string>
    Archs("arch", cl::CommaSeparated,
          cl::desc("Architectures to analyse (sm_80,sm_90,...); default: the\n"
                   "command's own (--cuda-gpu-arch, --offload-arch, nvcc's\n"
                   "-arch/-gencode), else sm_75 as nvcc 13"),
          cl::value_desc("sm_XX,..."), cl::cat(Category));

cl::opt<std::string>
    Format("format",
           cl::desc("Output format: text (default), json, sarif or markdown"),
           cl::value_desc("text|json|sarif|markdown"), cl::cat(Category),
           cl::sub(cl::SubCommand::getTopLevel()), cl::sub(DiffCommand),
           cl::sub(MergeCommand));

cl::opt<std::string>
    OutputFile("output",
               cl::desc("Write the report to this file (its extension chooses\n"
                        "the format unless --format is given: .sarif, .json,\n"
                        ".md, .txt)"),
               cl::value_desc("file"), cl::cat(Category),
               cl::sub(cl::SubCommand::getTopLevel()), cl::sub(DiffCommand),
               cl::sub(MergeCommand));

cl::alias OutputFileShort("o", cl::desc("Alias for --output"),
                          cl::aliasopt(OutputFile), cl::cat(Category));

cl::opt<std::string> SourceRoot(
    "source-root",
    cl::desc("Paths in SARIF and Markdown are relative to this folder\n"
             "(default: the CMake project's source folder for -p, else\n"
             "the folder holding every source)"),
    cl::value_desc("dir"), cl::cat(Category),
    cl::sub(cl::SubCommand::getTopLevel()), cl::sub(MergeCommand));

cl::opt<std::string> SummaryRows(
    "summary",
    cl::desc("Text and Markdown: which kernels the table shows: all\n"
             "(default) or findings (those with a finding)"),
    cl::value_desc("all|findings"), cl::init("all"), cl::cat(Category),
    cl::sub(cl::SubCommand::getTopLevel()), cl::sub(MergeCommand));
cl::opt<unsigned> NameWidth(
    "name-width",
    cl::desc("Text and Markdown: shorten kernel names longer than this\n"
             "(`cute::C<128>` as `_128`, template arguments past it as\n"
             "`...`; JSON and SARIF keep them whole; 0: never; default 60)"),
    cl::value_desc("N"), cl::init(DefaultNameWidth), cl::cat(Category),
    cl::sub(cl::SubCommand::getTopLevel()), cl::sub(MergeCommand));

cl::opt<std::string>
    FailOn("fail-on",
           cl::desc("Exit with 1 on findings at or above this level: error\n"
                    "(default), warning or note"),
           cl::init("error"), cl::value_desc("error|warning|note"),
           cl::cat(Category), cl::sub(cl::SubCommand::getTopLevel()),
           cl::sub(MergeCommand));

cl::opt<std::string> WarningsAsErrors(
    "warnings-as-errors",
    cl::desc("Warnings of the checks matching these globs are\n"
             "errors (clang-tidy's syntax: 'tilefit-*,-tilefit-budget')"),
    cl::value_desc("globs"), cl::cat(Category));

cl::list<std::string>
    CapacityDb("capacity-db",
               cl::desc("A capacity database that extends the built-in one\n"
                        "(or replaces it, with \"replace\": true)"),
               cl::value_desc("file"), cl::cat(Category));

cl::opt<std::string> CudaPath("cuda-path",
                              cl::desc("CUDA toolkit to parse with"),
                              cl::value_desc("dir"), cl::cat(Category));

cl::opt<bool> NoCudaToolkit(
    "no-cuda-toolkit",
    cl::desc("Parse with tilefit's built-in CUDA prelude instead of a\n"
             "toolkit (plain kernels only; faster)"),
    cl::cat(Category));

cl::opt<std::string> Budget(
    "budget",
    cl::desc("tilefit-budget warns above this fraction of the per-block\n"
             "opt-in maximum: 0.9 or 90% (default 0.9)"),
    cl::value_desc("fraction"), cl::cat(Category));

cl::opt<unsigned> Registers(
    "registers",
    cl::desc("Registers per thread to assume for occupancy (default: the\n"
             "command's -maxrregcount; else registers do not limit it)"),
    cl::init(0), cl::value_desc("n"), cl::cat(Category));

cl::opt<unsigned> Jobs(
    "j",
    cl::desc("Parse this many translation units at once (default: all cores)"),
    cl::init(0), cl::value_desc("n"), cl::cat(Category));

cl::opt<std::string>
    HeaderFilter("header-filter",
                 cl::desc("Show findings located in headers whose path matches "
                          "this regular expression\n"
                          "(findings in the translation unit's own file are "
                          "always shown), as clang-tidy"),
                 cl::value_desc("regex"), cl::cat(Category));

cl::opt<bool>
    AllowParseErrors("allow-parse-errors",
                     cl::desc("A unit with parse errors does not fail the run "
                              "(exit status 2): the kernels its\n"
                              "errors do not touch are analysed either way "
                              "(config key AllowParseErrors)"),
                     cl::cat(Category));

cl::opt<bool> ForceProgress(
    "progress",
    cl::desc("Show progress on stderr even when it is not a terminal"),
    cl::cat(Category));
cl::opt<bool>
    Quiet("quiet",
          cl::desc("No progress and no summary of suppressed findings"),
          cl::cat(Category));

cl::opt<std::string> CacheDir(
    "cache-dir",
    cl::desc("Keep the facts of each parse here and reuse them while the\n"
             "unit's files and flags are unchanged (default:\n"
             "$XDG_CACHE_HOME/tilefit or ~/.cache/tilefit)"),
    cl::value_desc("dir"), cl::cat(Category));

cl::opt<bool> NoCache("no-cache",
                      cl::desc("Neither read nor write the result cache"),
                      cl::cat(Category));

cl::opt<bool> NoBodySlicing(
    "no-body-slicing",
    cl::desc("Instantiate device function templates' bodies whole, as Clang\n"
             "does, instead of only the statements that can change a\n"
             "shared-memory figure: slower on CuTe and CUTLASS, but the\n"
             "per-thread arrays of deduced types (register fragments) are\n"
             "counted"),
    cl::cat(Category));

cl::opt<unsigned> CacheMaxMiB(
    "cache-max-size",
    cl::desc("Keep the result cache under this many MiB (default 1024)"),
    cl::value_desc("MiB"), cl::init(1024), cl::cat(Category));

cl::opt<bool>
    CacheStats("cache-stats",
               cl::desc("Say on stderr how many parses the result cache saved"),
               cl::cat(Category));

cl::opt<bool> ShowCommands(
    "show-parse-commands",
    cl::desc("Print the Clang command line of every parse to stderr"),
    cl::cat(Category));

cl::opt<bool> ListChecks("list-checks",
                         cl::desc("List tilefit's checks and exit"),
                         cl::cat(Category));

cl::opt<std::string>
    Checks("checks",
           cl::desc("Checks that report, as clang-tidy globs (default: all);\n"
                    "overrides the configuration file's Checks"),
           cl::value_desc("globs"), cl::cat(Category));

cl::opt<std::string> ConfigFile(
    "config-file",
    cl::desc("Use this configuration file for every source instead of\n"
             "the nearest .tilefit.yaml/.tilefit.json"),
    cl::value_desc("file"), cl::cat(Category));

cl::opt<std::string>
    ConfigText("config",
               cl::desc("Configuration as YAML or JSON, over the files'\n"
                        "(e.g. --config='{Budget: 0.5}')"),
               cl::value_desc("yaml"), cl::cat(Category));

cl::opt<bool> DumpConfig(
    "dump-config",
    cl::desc(
        "Print the effective configuration (for the first source) and exit"),
    cl::cat(Category));

cl::opt<std::string> Baseline(
    "baseline",
    cl::desc("Compare with this earlier JSON report and print the changes"),
    cl::value_desc("old.json"), cl::cat(Category));

cl::opt<std::string> MaxGrowth(
    "max-growth",
    cl::desc("With --baseline or diff: fail (exit 1) when a kernel's shared\n"
             "memory per block grows by more than this (bytes, KiB or %)"),
    cl::value_desc("bytes|N%"), cl::cat(Category),
    cl::sub(cl::SubCommand::getTopLevel()), cl::sub(DiffCommand));

cl::opt<std::string>
    Shard("shard",
          cl::desc("Analyse only shard K of N of the translation units (K/N);\n"
                   "tilefit merge combines the shards' JSON reports"),
          cl::value_desc("K/N"), cl::cat(Category));

cl::opt<bool> Launcher(
    "launcher",
    cl::desc("Compiler-launcher mode: tilefit --launcher -- nvcc ARGS...\n"
             "analyses the unit, writes OBJECT.tilefit.json, then runs the\n"
             "compiler unchanged (also as tilefit-launch nvcc ARGS...)"),
    cl::cat(Category));

cl::opt<bool> Lsp(
    "lsp",
    cl::desc("Language server mode (also 'tilefit lsp'): the Language Server\n"
             "Protocol on stdin/stdout, for editors"),
    cl::cat(Category));

cl::opt<std::string> CompileCommandsDir(
    "compile-commands-dir",
    cl::desc(
        "Language server: read compile_commands.json from this folder only\n"
        "(default: the nearest one above each file, or in a build/ folder "
        "there)"),
    cl::value_desc("dir"), cl::cat(Category));

cl::opt<unsigned> LspDebounceMs(
    "lsp-debounce-ms",
    cl::desc("Language server: wait this long after an edit before\n"
             "analysing (default 200)"),
    cl::init(200), cl::cat(Category));

cl::opt<bool> LspPreambles(
    "lsp-preambles",
    cl::desc("Language server: keep each file's #include block precompiled\n"
             "between analyses (default on)"),
    cl::init(true), cl::cat(Category));

void printVersion(raw_ostream &OS) {
  OS << "tilefit version " << TILEFIT_VERSION << "\n";
}

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

/// The output format from --format, else from --output's extension, else text.
/// The output format (and --summary's value, which only the text formats read).
std::optional<OutputFormat> chosenFormat() {
  if (SummaryRows != "all" && SummaryRows != "findings") {
    toolMessage("error",
                "--summary=" + SummaryRows + ": expected all or findings");
    return std::nullopt;
  }
  if (!Format.empty()) {
    auto F = parseFormat(Format);
    if (!F)
      toolMessage("error", "--format=" + Format +
                               ": expected text, json, sarif or markdown");
    return F;
  }
  if (!OutputFile.empty()) {
    auto F = formatForPath(OutputFile);
    if (!F)
      toolMessage(
          "error",
          "--output=" + OutputFile +
              ": cannot tell the format from the extension; give --format");
    return F;
  }
  return OutputFormat::Text;
}

std::optional<Severity> failLevel() {
  std::optional<Severity> Level = severityNamed(FailOn);
  if (!Level)
    toolMessage("error",
                "--fail-on=" + FailOn + ": expected error, warning or note");
  return Level;
}

/// The analysis request from the options.
std::optional<AnalyzeRequest> analyzeRequest(const char *Argv0,
                                             std::vector<std::string> Extra,
                                             bool HaveDashDash) {
  AnalyzeRequest Req;
  Req.Sources = Sources;
  Req.BuildPath = BuildPath;
  Req.Extra = std::move(Extra);
  Req.SourceRoot = SourceRoot;
  Req.HaveDashDash = HaveDashDash;
  if (!Archs.empty())
    Req.Overrides.Architectures =
        std::vector<std::string>(Archs.begin(), Archs.end());
  if (Budget.getNumOccurrences()) {
    std::optional<double> Fraction = parseBudgetFraction(Budget);
    if (!Fraction) {
      toolMessage("error", "--budget=" + Budget + ": expected " + BudgetRange);
      return std::nullopt;
    }
    Req.Overrides.Budget = *Fraction;
  }
  // A glob that matches no check is a typo that would turn a gate off.
  if (Checks.getNumOccurrences()) {
    if (auto Problem = checkListProblem(Checks, "--checks", true)) {
      toolMessage("error", *Problem);
      return std::nullopt;
    }
    Req.Overrides.Checks = Checks;
  }
  if (WarningsAsErrors.getNumOccurrences()) {
    if (auto Problem =
            checkListProblem(WarningsAsErrors, "--warnings-as-errors", false)) {
      toolMessage("error", *Problem);
      return std::nullopt;
    }
    Req.Overrides.WarningsAsErrors = WarningsAsErrors;
  }
  if (HeaderFilter.getNumOccurrences()) {
    std::string RegexError;
    if (!Regex(HeaderFilter).isValid(RegexError)) {
      toolMessage("error",
                  "--header-filter=" + HeaderFilter + ": " + RegexError);
      return std::nullopt;
    }
    Req.Overrides.HeaderFilterRegex = HeaderFilter;
  }
  if (AllowParseErrors.getNumOccurrences())
    Req.Overrides.AllowParseErrors = bool(AllowParseErrors);
  Req.CapacityDbs = CapacityDb;
  Req.ConfigFile = ConfigFile;
  Req.ConfigText = ConfigText;
  Req.CudaPath = CudaPath;
  Req.NoCudaToolkit = NoCudaToolkit;
  if (Registers > 255) {
    toolMessage("error", "--registers=" + std::to_string(Registers) +
                             ": a thread has at most 255 registers");
    return std::nullopt;
  }
  if (Registers)
    Req.Registers = Registers.getValue();
  Req.Threads = Jobs;
  if (!Shard.empty()) {
    unsigned K = 0, N = 0;
    StringRef A, B;
    std::tie(A, B) = StringRef(Shard).split('/');
    if (A.getAsInteger(10, K) || B.getAsInteger(10, N) || N == 0 || K == 0 ||
        K > N) {
      toolMessage("error",
                  "--shard=" + Shard + ": expected K/N with 1 <= K <= N");
      return std::nullopt;
    }
    Req.Shard = std::make_pair(K, N);
  }
  Req.ShareDir = shareDir(Argv0);
  Req.SliceBodies = !NoBodySlicing;
  return Req;
}

/// The session's options from the command line: caches, messages, progress.
driver::Session::Options sessionOptions() {
  driver::Session::Options S;
  // Progress while the run is long, where someone watches: never in CI logs
  // unless asked.
  S.Progress =
      !Quiet && (ForceProgress || sys::Process::StandardErrIsDisplayed());
  S.Quiet = Quiet;
  S.ShowCommands = ShowCommands;
  if (!NoCache)
    S.CacheDir = CacheDir.empty() ? frontend::ResultCache::defaultDir()
                                  : CacheDir.getValue();
  S.CacheMaxBytes = static_cast<uint64_t>(CacheMaxMiB) << 20;
  S.CacheStats = CacheStats;
  return S;
}

/// Writes \p R where --output says (stdout by default); false on failure.
bool emit(const Report &R, const OutputSettings &Out) {
  if (OutputFile.empty()) {
    writeReport(R, Out, std::cout);
    std::cout.flush();
    return true;
  }
  const std::string Problem = writeFile(
      OutputFile, [&](std::ostream &File) { writeReport(R, Out, File); });
  if (!Problem.empty()) {
    toolMessage("error",
                "--output=" + OutputFile + ": cannot write: " + Problem);
    return false;
  }
  return true;
}

/// Reads --max-growth into \p Threshold (none when not given); false, with
/// the error said, when it is malformed.
bool readMaxGrowth(std::optional<GrowthThreshold> &Threshold) {
  if (!MaxGrowth.empty() && !(Threshold = parseGrowthThreshold(MaxGrowth))) {
    toolMessage("error", "--max-growth=" + MaxGrowth +
                             ": expected bytes (4096, 4KiB) or N%");
    return false;
  }
  return true;
}

/// How a report is written: format \p Fmt, paths relative to \p Root,
/// and the table as --name-width and --summary say.
OutputSettings outputSettings(OutputFormat Fmt, std::string Root) {
  OutputSettings Out;
  Out.Format = Fmt;
  Out.SourceRoot = std::move(Root);
  Out.NameWidth = NameWidth;
  Out.OnlyFindings = SummaryRows == "findings";
  return Out;
}

int runAnalysis(const char *Argv0, std::vector<std::string> Extra,
                bool HaveDashDash) {
  auto Req = analyzeRequest(Argv0, std::move(Extra), HaveDashDash);
  auto Fmt = chosenFormat();
  auto Fail = failLevel();
  std::optional<GrowthThreshold> Threshold;
  if (!readMaxGrowth(Threshold))
    return ExitFailure;
  if (!Req || !Fmt || !Fail)
    return ExitFailure;

  if (DumpConfig) {
    std::string Where = !Sources.empty() ? Sources.front() : std::string("./-");
    SmallString<256> Abs(Where);
    sys::fs::make_absolute(Abs);
    auto Cfg = effectiveConfig(*Req, driver::Session(sessionOptions()),
                               std::string(Abs));
    if (!Cfg) {
      toolMessage("error", toString(Cfg.takeError()));
      return ExitFailure;
    }
    outs() << Cfg->toYaml();
    return ExitOk;
  }
  if (Sources.empty() && BuildPath.empty()) {
    toolMessage(
        "error",
        "no input: name sources, or a build folder with -p (see --help)");
    return ExitFailure;
  }
  std::optional<Report> Old;
  if (!Baseline.empty()) {
    auto B = loadJsonReport(Baseline);
    if (!B) {
      toolMessage("error", B.error());
      return ExitFailure;
    }
    Old = std::move(*B);
  }

  driver::Session Session(sessionOptions());
  AnalyzeResult Result = analyze(*Req, Session);
  if (!Result.UsageError.empty()) {
    toolMessage("error", Result.UsageError);
    return ExitFailure;
  }
  // The source root: the driver's policy pass chose it.
  const OutputSettings Out = outputSettings(*Fmt, Result.R.SourceRoot);
  if (!emit(Result.R, Out))
    return ExitFailure;
  int Status = exitStatus(Result.R, Result.Failed, *Fail);
  if (Old) {
    // The comparison goes to stdout after the report (stderr when the report is
    // a document).
    std::vector<KernelDelta> Deltas = diffReports(*Old, Result.R, Threshold);
    DiffFormat DF = *Fmt == OutputFormat::Markdown ? DiffFormat::Markdown
                                                   : DiffFormat::Text;
    std::ostringstream Text;
    renderDiff(Deltas, DF, Text);
    if (*Fmt == OutputFormat::Text || *Fmt == OutputFormat::Markdown)
      std::cout << "\n" << Text.str();
    else
      errs() << Text.str();
    if (Status == ExitOk &&
        std::any_of(Deltas.begin(), Deltas.end(),
                    [](const KernelDelta &D) { return D.OverThreshold; }))
      Status = ExitFindings;
  }
  return Status;
}

/// Splits the command line: tilefit's own arguments into \p Own (`tilefit lsp`
/// as --lsp), everything after "--" into \p Extra as compiler arguments, as in
/// clang-tidy. Returns whether there was a "--".
bool splitArguments(int argc, const char **argv, std::vector<const char *> &Own,
                    std::vector<std::string> &Extra) {
  bool HaveDashDash = false;
  for (int I = 0; I < argc; ++I) {
    if (!HaveDashDash && I > 0 && StringRef(argv[I]) == "--") {
      HaveDashDash = true;
      continue;
    }
    if (HaveDashDash)
      Extra.push_back(argv[I]);
    else if (I == 1 && StringRef(argv[I]) == "lsp")
      Own.push_back("--lsp");
    else
      Own.push_back(argv[I]);
  }
  return HaveDashDash;
}

/// `tilefit lsp --help`: the language server's usage and the options it
/// reads, not the analysis's.
bool lspHelp(const std::vector<const char *> &Own) {
  if (Own.size() < 2 || StringRef(Own[1]) != "--lsp")
    return false;
  if (llvm::none_of(Own, [](StringRef A) {
        return A == "--help" || A == "-help" || A == "-h";
      }))
    return false;
  outs() << "OVERVIEW: tilefit lsp: the language server. It speaks the "
            "Language Server Protocol\n"
            "on stdin and stdout: the diagnostics, hovers, inlay hints and "
            "code lenses of the\n"
            "analysis, for the files an editor has open, as they are "
            "edited.\n\n"
            "USAGE: tilefit lsp [options]\n\n"
            "Editors start it themselves (README, \"The language server\"). "
            "Settings also come\n"
            "from the client's initializationOptions and "
            "workspace/didChangeConfiguration.\n\n"
            "OPTIONS:\n";
  for (cl::Option *O : std::initializer_list<cl::Option *>{
           &CompileCommandsDir, &LspDebounceMs, &LspPreambles, &BuildPath,
           &ConfigFile, &CudaPath, &Budget})
    O->printOptionInfo(30);
  return true;
}

/// A mistyped subcommand (`tilefit dif a.json b.json`) is not a source file:
/// true, with the error said, when \p Own's first argument is one.
bool mistypedSubcommand(const std::vector<const char *> &Own) {
  if (Own.size() <= 1)
    return false;
  StringRef First(Own[1]);
  const bool LooksLikeAName = !First.starts_with("-") &&
                              First.find_first_of("./\\") == StringRef::npos &&
                              !sys::fs::exists(First);
  if (!LooksLikeAName ||
      llvm::is_contained({"calc", "diff", "merge", "lsp"}, First))
    return false;
  for (StringRef Known : {"calc", "diff", "merge", "lsp"})
    if (First.edit_distance(Known) <= 2) {
      toolMessage("error", "unknown subcommand '" + First.str() +
                               "'; did you mean '" + Known.str() +
                               "'? (tilefit --help lists them)");
      return true;
    }
  return false;
}

/// --list-checks: each check with its level and summary (Markdown with
/// --format=markdown).
int listChecks() {
  if (Format == "markdown") {
    // docs/checks.md is this output.
    outs() << "# tilefit's checks\n\nGenerated by `tilefit --list-checks "
              "--format=markdown` from "
              "`model/include/tilefit/model/Checks.def`.\n";
    for (const CheckInfo &C : allChecks())
      outs() << "\n## " << C.Name << "\n\n*" << severityName(C.DefaultSeverity)
             << "*: " << C.Summary << ".\n\n"
             << C.Help << "\n";
    return ExitOk;
  }
  for (const CheckInfo &C : allChecks())
    outs() << C.Name << " (" << severityName(C.DefaultSeverity)
           << "): " << C.Summary << "\n";
  return ExitOk;
}

/// `tilefit diff OLD.json NEW.json`.
int runDiffCommand() {
  auto Fmt = chosenFormat();
  std::optional<GrowthThreshold> Threshold;
  if (!readMaxGrowth(Threshold))
    return ExitFailure;
  if (!Fmt)
    return ExitFailure;
  return runDiff(DiffInputs, *Fmt, Threshold, OutputFile);
}

/// `tilefit merge A.json B.json ...`: the combined report, written as a run's.
int runMergeCommand() {
  auto Fmt = chosenFormat();
  auto Fail = failLevel();
  if (!Fmt || !Fail)
    return ExitFailure;
  auto Merged = runMerge(MergeInputs);
  if (!Merged)
    return ExitFailure;
  std::string Root = !SourceRoot.empty() ? SourceRoot.getValue()
                     : !Merged->SourceRoot.empty()
                         ? Merged->SourceRoot
                         : defaultSourceRoot("", *Merged);
  const OutputSettings Out = outputSettings(*Fmt, std::move(Root));
  Merged->SourceRoot = Out.SourceRoot;
  if (!emit(*Merged, Out))
    return ExitFailure;
  bool Failed = std::any_of(
      Merged->Units.begin(), Merged->Units.end(),
      [](const UnitReport &U) { return !U.Ok && !U.ErrorsAllowed; });
  return exitStatus(*Merged, Failed, *Fail);
}

} // namespace

int tilefitMain(int argc, const char **argv) {
  // A crash inside Clang while parsing one unit is contained to that unit.
  llvm::CrashRecoveryContext::Enable();

  // `tilefit-launch nvcc ARGS...`: the compiler launcher, no options of its
  // own.
  if (sys::path::stem(argv[0]) == "tilefit-launch") {
    std::vector<std::string> Compiler(argv + 1, argv + argc);
    return runLauncher(argv[0], Compiler, shareDir(argv[0]));
  }

  std::vector<const char *> Own;
  std::vector<std::string> Extra;
  const bool HaveDashDash = splitArguments(argc, argv, Own, Extra);
  Own = joinTileValues(std::move(Own));
  if (lspHelp(Own))
    return ExitOk;
  if (mistypedSubcommand(Own))
    return ExitFailure;

  cl::HideUnrelatedOptions({&Category, &CalcCategory});
  cl::SetVersionPrinter(printVersion);
  std::string ParseErrors;
  raw_string_ostream ErrOS(ParseErrors);
  const bool Calc = Own.size() > 1 && StringRef(Own[1]) == "calc";
  if (!cl::ParseCommandLineOptions(static_cast<int>(Own.size()), Own.data(),
                                   Calc ? CalcOverview : Overview, &ErrOS)) {
    ErrOS.flush();
    errs() << ParseErrors;
    return ExitFailure;
  }

  if (ListChecks)
    return listChecks();
  if (CalcCommand)
    return runCalc(shareDir(argv[0]) + "/capacity.json");
  if (DiffCommand)
    return runDiffCommand();
  if (MergeCommand)
    return runMergeCommand();
  if (Launcher)
    return runLauncher(argv[0], Extra, shareDir(argv[0]));
  if (Lsp) {
    auto Req = analyzeRequest(argv[0], {}, false);
    if (!Req)
      return ExitFailure;
    return runLanguageServer(std::move(*Req), sessionOptions(),
                             CompileCommandsDir, LspDebounceMs, LspPreambles);
  }
  return runAnalysis(argv[0], std::move(Extra), HaveDashDash);
}

} // namespace tool
} // namespace tilefit
