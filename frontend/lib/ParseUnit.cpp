//===- ParseUnit.cpp - The parse of one unit ------------------------------===//
//
// One unit, one side, one architecture: the file checked, Clang run over the
// command (PrecompiledInputs.h chooses what it loads, ParseActions.h what it
// collects), a crash contained, a failure on a fast path retried on the plain
// path, and the unit parsed again with source fix-ups (SourceFixups.h) where
// its errors are constructs nvcc accepts. The scheduling and caching of many
// units is FactsPipeline.cpp's; the command lines, ParseCommand.cpp's.
//
//===----------------------------------------------------------------------===//
#include "tilefit/frontend/Parse.h"

#include "ErrorCollector.h"
#include "ParseActions.h"
#include "ParseCommand.h"
#include "PrecompiledInputs.h"
#include "SourceFixups.h"

#include "tilefit/model/Checks.h"

#include "clang/Basic/FileManager.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>

namespace tilefit {
namespace frontend {

/// \p Env without its fast paths: no precompiled headers, no preambles.
static ParseEnvironment withoutFastPaths(const ParseEnvironment &Env) {
  ParseEnvironment Plain = Env;
  Plain.Pch = nullptr;
  Plain.Preambles = nullptr;
  return Plain;
}

namespace {

/// What a parse of one side hands back: whether Clang ran to its end (false:
/// it crashed, and the crash was contained) and its own verdict.
struct ParseRun {
  bool Ran = false;
  bool Ok = false;
};

/// Runs \p Factory's action over \p Job's command line for one side, in the
/// files \p FS holds, Clang's errors to \p Errors; a crash is contained.
ParseRun runParse(const UnitJob &Job, const ParseEnvironment &Env,
                  bool HostSide,
                  llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS,
                  PchActionFactory &Factory, ErrorCollector &Errors) {
  clang::FileSystemOptions FSOpts;
  FSOpts.WorkingDir = Job.Command.Directory;
  auto Files = llvm::makeIntrusiveRefCnt<clang::FileManager>(FSOpts, FS);
  clang::tooling::ToolInvocation Invocation(
      parseCommandLine(Job, Env, HostSide), &Factory, Files.get(),
      std::make_shared<clang::PCHContainerOperations>());
  Invocation.setDiagnosticConsumer(&Errors);
  ParseRun R;
  llvm::CrashRecoveryContext CRC;
  R.Ran = CRC.RunSafely([&] { R.Ok = Invocation.run(); });
  return R;
}

/// A parse's outcome before it runs: its errors go to \p Errors; fix-ups are
/// looked for while \p FixupsLeft.
ParseOutcome outcomeFor(const UnitJob &Job, const ParseEnvironment &Env,
                        ErrorCollector &Errors, unsigned FixupsLeft) {
  ParseOutcome Outcome;
  Outcome.Errors = &Errors;
  Outcome.AllowFixups = FixupsLeft > 0;
  Outcome.Relocatable = Job.Flags.Rdc;
  Outcome.SliceBodies = Env.SliceBodies;
  Outcome.ResourceInclude = Env.ResourceInclude;
  return Outcome;
}

/// \p Env with the files \p Fixups rewrite in memory over the disk (as an
/// editor's buffers are).
ParseEnvironment withFixups(const ParseEnvironment &Env,
                            const std::vector<TextEdit> &Fixups) {
  ParseEnvironment Fixed = Env;
  for (const auto &[File, Edits] : editsByFile(Fixups))
    if (std::optional<std::string> Text = readSource(Env, File))
      Fixed.Unsaved[File] = applyEdits(std::move(*Text), Edits);
  return Fixed;
}

} // namespace

/// The code a fix-up adds at the end of a unit names a kernel template's
/// specialization as the source wrote it; where that name means nothing there,
/// the error is tilefit's, not the unit's: it becomes a warning that the kernel
/// is not reported.
static void forgiveAppendedErrors(TranslationUnitFacts &Facts,
                                  const std::vector<TextEdit> &Edits,
                                  const ParseEnvironment &Env) {
  for (const TextEdit &E : Edits) {
    if (E.Length != 0 ||
        E.Replacement.find(AppendedPrefix) == std::string::npos)
      continue;
    std::optional<std::string> Original = readSource(Env, E.File);
    if (!Original)
      continue;
    const size_t End = std::min<size_t>(E.Offset, Original->size());
    const unsigned Lines =
        1 + static_cast<unsigned>(
                std::count(Original->begin(), Original->begin() + End, '\n'));
    for (Diagnostic &D : Facts.Diagnostics)
      if (D.Level == Severity::Error &&
          D.Check == checkInfo(CheckId::ClangError).Name &&
          D.Loc.File == E.File && D.Loc.Line > Lines) {
        D.Level = Severity::Warning;
        D.Check = checkInfo(CheckId::Input).Name;
        D.Notes.insert(D.Notes.begin(), {D.Message, E.What.Loc});
        D.Message = "a kernel template that only device code launches here "
                    "could not be "
                    "instantiated by tilefit: ptxas compiles it, tilefit does "
                    "not report it";
        D.Loc = E.What.Loc;
      }
  }
  for (const TextEdit &E : Edits)
    if (E.What.Rule == UninstantiatedLaunchRule) {
      Diagnostic D;
      D.Level = Severity::Warning;
      D.Check = checkInfo(CheckId::Input).Name;
      D.Message =
          "a kernel template launched from device code inside a template "
          "instantiation is not instantiated by tilefit: ptxas compiles it, "
          "tilefit "
          "does not report it";
      D.Loc = E.What.Loc;
      D.Arch = Facts.Arch;
      Facts.Diagnostics.push_back(std::move(D));
    }
  const bool StillErrors = std::any_of(
      Facts.Diagnostics.begin(), Facts.Diagnostics.end(),
      [](const Diagnostic &D) { return D.Level == Severity::Error; });
  if (Facts.Partial && !StillErrors) {
    Facts.Partial = false;
    for (KernelFacts &K : Facts.Kernels)
      K.Error.reset();
  }
}

/// How many times a unit is parsed again with source fix-ups: one construct can
/// hide another (an instantiation whose body Clang drops for one error hides
/// the next).
constexpr unsigned FixupRounds = 3;

/// The facts of \p Job before it is parsed: its file, target and flags.
static TranslationUnitFacts unitFactsFor(const UnitJob &Job) {
  TranslationUnitFacts Facts;
  Facts.File = Job.Command.File;
  Facts.Arch = Job.Target.Real;
  Facts.ParsedAs = clangArchFor(Job.Target.Real);
  Facts.Jit = Job.Target.Jit;
  Facts.MaxRegisters = Job.Flags.MaxRegisters;
  Facts.RelocatableDeviceCode = Job.Flags.Rdc;
  return Facts;
}

/// Why \p Job's source cannot be parsed: it must be a readable regular file
/// in \p FS (or an unsaved buffer), and a CUDA source. None when it can.
static std::optional<std::string> sourceProblem(const UnitJob &Job,
                                                llvm::vfs::FileSystem &FS) {
  llvm::ErrorOr<llvm::vfs::Status> Status = FS.status(Job.Command.File);
  if (!Status)
    return "cannot read '" + Job.Command.File +
           "': " + Status.getError().message();
  if (!Status->isRegularFile())
    return "'" + Job.Command.File + "' is not a regular file";
  if (auto Open = FS.openFileForRead(Job.Command.File); !Open)
    return "cannot read '" + Job.Command.File +
           "': " + Open.getError().message();
  if (!Job.Flags.IsCuda)
    return "'" + Job.Command.File +
           "' is not a CUDA source (no .cu extension and no '-x cuda')";
  return std::nullopt;
}

/// Adds to \p Again's fix-ups each of \p Applied that it does not list yet.
static void addAppliedFixups(TranslationUnitFacts &Again,
                             const std::vector<TextEdit> &Applied) {
  for (const TextEdit &E : Applied)
    if (std::none_of(Again.Fixups.begin(), Again.Fixups.end(),
                     [&](const SourceFixup &F) {
                       return F.Rule == E.What.Rule &&
                              F.Loc.File == E.What.Loc.File &&
                              F.Loc.Line == E.What.Loc.Line &&
                              F.Loc.Column == E.What.Loc.Column;
                     }))
      Again.Fixups.push_back(E.What);
}

/// Completes \p Facts of a parse that is not done again: Clang's \p Problems,
/// what \p Outcome found, the inputs \p Factory read and, when the parse had
/// errors (\p Ok false or any in \p Errors), whether the unit failed.
static void finishFacts(TranslationUnitFacts &Facts, const UnitJob &Job,
                        const std::vector<Diagnostic> &Problems,
                        const ParseOutcome &Outcome,
                        const PchActionFactory &Factory,
                        const ErrorCollector &Errors, bool Ok) {
  Facts.Diagnostics.insert(Facts.Diagnostics.begin(), Problems.begin(),
                           Problems.end());
  Facts.Diagnostics.insert(Facts.Diagnostics.end(), Outcome.NvccOnly.begin(),
                           Outcome.NvccOnly.end());
  Facts.SkippedHostCalls = Outcome.SkippedHostCalls;
  Facts.LineDependent = Outcome.LineDependent;
  Factory.addInputs(Facts.Inputs);
  if (Ok && Errors.getNumErrors() == 0)
    return;
  // What Clang built is analysed all the same (KernelFacts::Error marks the
  // kernels the errors may have changed); a parse that produced nothing at
  // all failed.
  Facts.Partial = true;
  Facts.ParseStopped = Errors.stopped();
  if (Facts.Diagnostics.empty()) {
    Facts.Failed = true;
    Facts.Partial = false;
    Facts.Vars.clear();
    Facts.Kernels.clear();
    Facts.Diagnostics.push_back(inputError(
        Job.Command.File, "Clang could not parse '" + Job.Command.File + "'"));
  }
  for (Diagnostic &D : Facts.Diagnostics) {
    D.Arch = Facts.Arch;
    if (D.Loc.File.empty())
      D.Loc.File = Job.Command.File;
  }
}

/// parseUnit; a unit whose errors are constructs nvcc accepts is parsed again
/// with them rewritten (SourceFixups.h), up to \p FixupsLeft times.
static TranslationUnitFacts parseUnitWith(const UnitJob &Job,
                                          const ParseEnvironment &Env,
                                          unsigned FixupsLeft) {
  TranslationUnitFacts Facts = unitFactsFor(Job);
  llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS =
      fileSystemFor(Env, Job.Command.Directory);
  if (std::optional<std::string> Problem = sourceProblem(Job, *FS)) {
    Facts.Failed = true;
    Facts.Diagnostics.push_back(
        inputError(Job.Command.File, std::move(*Problem)));
    return Facts;
  }

  std::vector<Diagnostic> Problems;
  ErrorCollector Errors(Problems);
  ParseOutcome Outcome = outcomeFor(Job, Env, Errors, FixupsLeft);
  // The shared #include lines only over the files on disk: a rewritten or
  // unsaved header would be read from the precompiled one instead.
  PchActionFactory Factory(
      [&Facts, &Outcome](LoadedHeaders Loaded) {
        return makeCollectAction(Facts, std::move(Loaded), Outcome);
      },
      Env,
      Env.Unsaved.empty() ? Job.SharedIncludes : std::vector<std::string>());
  const ParseRun Run =
      runParse(Job, Env, /*HostSide=*/false, FS, Factory, Errors);
  const bool Ok = Run.Ok;
  if (!Run.Ran) {
    // A crash on a fast path (a precompiled header, a prefix, a preamble)
    // is the fast path's: the plain parse decides, and loses nothing.
    if (!Factory.loadedAnything())
      return crashedFacts(Job);
    TranslationUnitFacts Again =
        parseUnitWith(Job, withoutFastPaths(Env), FixupsLeft);
    // What was loaded is kept: built again, it would crash the same way, at
    // the cost of a build on top of the second parse.
    if (Env.FastPathCrashed)
      Env.FastPathCrashed(
          "Clang crashed parsing '" + Job.Command.File + "' for " +
          Job.Target.Real +
          " with what was precompiled for it (runtime headers, #include "
          "prefix or preamble); it was parsed again without that" +
          (Again.Failed ? std::string() : ", and nothing is lost"));
    return Again;
  }
  if (!Outcome.SliceAgain.empty()) {
    ParseEnvironment Whole = Env;
    Whole.SliceBodies = false;
    TranslationUnitFacts Again = parseUnitWith(Job, Whole, FixupsLeft);
    Again.Slicing.Enabled = true;
    Again.Slicing.Fallback = Outcome.SliceAgain;
    return Again;
  }
  if ((!Ok || Errors.getNumErrors() > 0) &&
      Factory.retryWithout(Problems, Job.Command.File, Env)) {
    // The parse without the precompiled header or preamble decides; either is
    // built anew next time if it was at fault: Clang rejected it, or the parse
    // has no error without it. (A unit with errors of its own would otherwise
    // keep a rejected header, and parse twice, for good.)
    TranslationUnitFacts Again =
        parseUnitWith(Job, withoutFastPaths(Env), FixupsLeft);
    if ((!Again.Failed && !Again.Partial) || Factory.rejected(Problems))
      Factory.discard();
    return Again;
  }
  if (!Outcome.Fixups.empty()) {
    // Parse again, the rewritten files in memory over the disk.
    TranslationUnitFacts Again =
        parseUnitWith(Job, withFixups(Env, Outcome.Fixups), FixupsLeft - 1);
    forgiveAppendedErrors(Again, Outcome.Fixups, Env);
    addAppliedFixups(Again, Outcome.Fixups);
    return Again;
  }
  finishFacts(Facts, Job, Problems, Outcome, Factory, Errors, Ok);
  return Facts;
}

TranslationUnitFacts parseUnit(const UnitJob &Job,
                               const ParseEnvironment &Env) {
  return parseUnitWith(Job, Env, Env.NvccCompatibility ? FixupRounds : 0);
}

std::optional<std::string> readSource(const ParseEnvironment &Env,
                                      const std::string &File) {
  auto It = Env.Unsaved.find(File);
  if (It != Env.Unsaved.end())
    return It->second;
  // Only a regular file: opening a FIFO would block.
  if (!llvm::sys::fs::is_regular_file(File))
    return std::nullopt;
  auto Buf = llvm::MemoryBuffer::getFile(File, /*IsText=*/true);
  if (!Buf)
    return std::nullopt;
  return (*Buf)->getBuffer().str();
}

/// parseHostSide; \p FixupsLeft as for parseUnitWith.
static std::vector<HostKernelCalls>
parseHostSideWith(const UnitJob &Job, const ParseEnvironment &Env,
                  std::vector<Diagnostic> &Problems,
                  std::vector<std::string> *Inputs, unsigned FixupsLeft,
                  bool *LineDependent) {
  std::vector<HostKernelCalls> Calls;
  std::vector<std::string> Read;
  std::vector<Diagnostic> Errors;
  ErrorCollector Collector(Errors);
  ParseOutcome Outcome = outcomeFor(Job, Env, Collector, FixupsLeft);
  PchActionFactory Factory(
      [&](LoadedHeaders Loaded) {
        return makeHostAction(Calls, Read, std::move(Loaded), Outcome);
      },
      Env);
  const ParseRun Run =
      runParse(Job, Env, /*HostSide=*/true,
               fileSystemFor(Env, Job.Command.Directory), Factory, Collector);
  const bool Ran = Run.Ran, Ok = Run.Ok;
  if ((!Ran || !Ok || Collector.getNumErrors() > 0) &&
      (!Ran ? Factory.loadedAnything()
            : Factory.retryWithout(Errors, Job.Command.File, Env))) {
    // The parse without the precompiled header or preamble decides.
    size_t Before = Problems.size();
    auto Again = parseHostSideWith(Job, withoutFastPaths(Env), Problems, Inputs,
                                   FixupsLeft, LineDependent);
    if (Problems.size() == Before || Factory.rejected(Errors))
      Factory.discard();
    return Again;
  }
  if (Ran && !Outcome.Fixups.empty())
    return parseHostSideWith(Job, withFixups(Env, Outcome.Fixups), Problems,
                             Inputs, FixupsLeft - 1, LineDependent);
  Factory.addInputs(Read);
  if (LineDependent)
    *LineDependent = Outcome.LineDependent;
  if (!Ran || !Ok || Collector.getNumErrors() > 0) {
    Diagnostic D = inputError(
        Job.Command.File,
        Ran ? "the host-side parse of '" + Job.Command.File +
                  "' had errors; launches in host code the device-side parse "
                  "cannot see (under "
                  "#ifndef __CUDA_ARCH__) are not counted where the errors are"
            : "the host-side parse of '" + Job.Command.File +
                  "' failed; launches in host code the device-side parse "
                  "cannot see (under "
                  "#ifndef __CUDA_ARCH__) are not counted");
    D.Level = Severity::Warning;
    if (!Errors.empty())
      D.Notes.push_back({Errors.front().Message, Errors.front().Loc});
    Problems.push_back(std::move(D));
    if (!Ran)
      return {};
    return Calls;
  }
  if (Inputs)
    *Inputs = std::move(Read);
  return Calls;
}

std::vector<HostKernelCalls> parseHostSide(const UnitJob &Job,
                                           const ParseEnvironment &Env,
                                           std::vector<Diagnostic> &Problems,
                                           std::vector<std::string> *Inputs,
                                           bool *LineDependent) {
  return parseHostSideWith(Job, Env, Problems, Inputs,
                           Env.NvccCompatibility ? FixupRounds : 0,
                           LineDependent);
}

void mergeHostCalls(TranslationUnitFacts &Facts,
                    const std::vector<HostKernelCalls> &Host) {
  auto Same = [](const SourcePos &A, const SourcePos &B) {
    return A.File == B.File && A.Line == B.Line && A.Column == B.Column;
  };
  for (KernelFacts &K : Facts.Kernels)
    for (const HostKernelCalls &H : Host) {
      if (H.Mangled != K.Mangled)
        continue;
      for (const LaunchSite &L : H.Launches)
        if (std::none_of(
                K.Launches.begin(), K.Launches.end(),
                [&](const LaunchSite &Seen) { return Same(Seen.Loc, L.Loc); }))
          K.Launches.push_back(L);
      for (const AttributeCall &A : H.Attributes)
        if (std::none_of(K.Attributes.begin(), K.Attributes.end(),
                         [&](const AttributeCall &Seen) {
                           return Same(Seen.Loc, A.Loc);
                         }))
          K.Attributes.push_back(A);
      auto ByPosition = [](const auto &X, const auto &Y) {
        return std::tie(X.Loc.File, X.Loc.Line, X.Loc.Column) <
               std::tie(Y.Loc.File, Y.Loc.Line, Y.Loc.Column);
      };
      std::stable_sort(K.Launches.begin(), K.Launches.end(), ByPosition);
      std::stable_sort(K.Attributes.begin(), K.Attributes.end(), ByPosition);
    }
}

} // namespace frontend
} // namespace tilefit
