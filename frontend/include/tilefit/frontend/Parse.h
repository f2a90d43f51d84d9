//===- Parse.h - Parsing translation units per architecture -----*- C++ -*-===//
#ifndef TILEFIT_FRONTEND_PARSE_H
#define TILEFIT_FRONTEND_PARSE_H

#include "tilefit/frontend/CommandTranslation.h"
#include "tilefit/frontend/CompileCommand.h"
#include "tilefit/frontend/Toolkit.h"
#include "tilefit/model/Facts.h"

#include <atomic>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tilefit {
namespace frontend {

class FactsMemo;
class HeaderPchStore;
class PreambleStore;
class ResultCache;

/// What every parse shares.
struct ParseEnvironment {
  CudaToolkit
      Toolkit; ///< Not found: tilefit's built-in CUDA prelude is used instead.
  std::string ResourceInclude;  ///< tilefit's resource include folder
                                /// < (share/tilefit/include).
  std::string ClangResourceDir; ///< Clang's builtin headers.
  /// tilefit's CUDA compatibility header and source fix-ups (what makes Clang
  /// accept what nvcc accepts); tests turn them off to show what each one is
  /// for.
  bool NvccCompatibility = true;
  /// Instantiate only the statements of device function templates that can
  /// change a shared-memory figure (matchers/BodySlicer.h); false: every body
  /// whole (--no-body-slicing, and the twin tests' plain parse).
  bool SliceBodies = true;
  /// Unsaved editor buffers by absolute path: parses read these instead of the
  /// files on disk (the language server's overlay).
  std::map<std::string, std::string> Unsaved;
  /// When set and true, jobs not yet started are skipped (a newer edit made
  /// them stale).
  const std::atomic<bool> *Cancelled = nullptr;
  /// Facts of earlier parses (null: none). Not used while there are unsaved
  /// buffers.
  ResultCache *Cache = nullptr;
  /// The precompiled CUDA runtime headers (null: parse them every time), and
  /// the #include lines units share.
  HeaderPchStore *Pch = nullptr;
  /// A unit no other shares options with has its own leading #include lines
  /// precompiled too (the fixtures' twin tests, which parse units one by one).
  bool PrecompileSoleIncludes = false;
  /// Per-file preambles kept between analyses (the language server; null:
  /// none). A parse that loads one does not load the precompiled runtime
  /// headers: the preamble holds them.
  PreambleStore *Preambles = nullptr;
  /// The last facts of each command, answering an edit that changes no line
  /// of code (the language server; null: none). Used with unsaved buffers
  /// too: it checks every file read.
  FactsMemo *Memo = nullptr;
  /// Told (from any job's thread) when Clang crashed on a parse that loaded
  /// something precompiled (runtime headers, an #include prefix, a preamble):
  /// the unit was parsed again without it, and the message says whether
  /// anything was lost. Null: said nowhere.
  std::function<void(const std::string &)> FastPathCrashed;
  /// Called as a parse that loads something precompiled starts (null: not).
  /// For tests, to make a fast path crash.
  std::function<void()> FastPathStarts;
};

/// The contents of \p File as parses see it: \p Env's unsaved buffer, else the
/// file on disk.
std::optional<std::string> readSource(const ParseEnvironment &Env,
                                      const std::string &File);

/// One translation unit to parse for one architecture.
struct UnitJob {
  CompileCommand Command;
  DeviceFlags Flags;
  DeviceTarget Target;
  /// nvcc's __CUDA_ARCH_LIST__ for the command: every target's __CUDA_ARCH__,
  /// ascending.
  std::vector<unsigned> ArchList;
  /// The leading #include lines of the unit that another unit with the same
  /// options starts with too (IncludePrefix.h), resolved: precompiled once with
  /// the runtime headers. Set by parseAll where the environment has a store
  /// of precompiled headers.
  std::vector<std::string> SharedIncludes;
  /// The unit's configuration's PrecompileIncludes globs: leading #include
  /// lines they name are precompiled even where no other unit shares them.
  std::vector<std::string> PrecompileIncludes;
};

/// Turns commands into jobs: one per CUDA command and architecture. \p
/// ArchOverride (from --arch) replaces the commands' own architectures; a
/// command naming none gets \p DefaultArch.
std::vector<UnitJob> planJobs(const std::vector<CompileCommand> &Commands,
                              const std::vector<std::string> &ArchOverride);

/// The architecture Clang parses \p Target as: itself when Clang 19 knows it,
/// else the newest one it knows (sm_90), with __CUDA_ARCH__ set to the target's
/// value.
std::string clangArchFor(const std::string &Target);

/// The clang driver command line for \p Job (for tests and
/// --show-parse-commands): the device-side parse, or with \p HostSide the
/// host-side one.
std::vector<std::string> parseCommandLine(const UnitJob &Job,
                                          const ParseEnvironment &Env,
                                          bool HostSide = false);

/// The launches and attribute calls of a host-side parse of \p Job's unit.
/// Problems are appended to \p Problems (a failed host parse only means those
/// launches stay unseen). \p LineDependent, where given, is set when a
/// `__LINE__` in the unit's file may reach a launch (FactsMemo.h).
std::vector<HostKernelCalls>
parseHostSide(const UnitJob &Job, const ParseEnvironment &Env,
                std::vector<Diagnostic> &Problems,
                std::vector<std::string> *Inputs = nullptr,
                bool *LineDependent = nullptr);

/// Adds to \p Facts' kernels the host-side launches and calls the device-side
/// parse missed.
void mergeHostCalls(TranslationUnitFacts &Facts,
                    const std::vector<HostKernelCalls> &Host);

/// Parses one unit and collects its facts. Never throws; failures are facts
/// with Failed set.
TranslationUnitFacts parseUnit(const UnitJob &Job,
                                 const ParseEnvironment &Env);

/// Called after each job with the number done so far and the job.
using ProgressFn =
    std::function<void(size_t Done, size_t Total, const UnitJob &Job)>;

/// Receives the facts of one job (its index in the jobs), once per job, as soon
/// as they are final; calls are serialized, in no particular order.
using FactsConsumer =
    std::function<void(size_t Job, TranslationUnitFacts &&Facts)>;

/// Parses every job on \p Threads threads and hands each job's facts to \p
/// Consume when they are final (a cache hit at once; a parse when its command's
/// parses are done and, if one is needed, its host-side parse), so that a run
/// holds the facts of the units in flight, not of the whole project. The files
/// each parse read (Inputs) are dropped once the cache has them. A job whose
/// parse crashes Clang is reported as a failed unit; the others finish. Once
/// Env.Cancelled is set, jobs not yet started are skipped and the results are
/// to be dropped.
void parseAll(const std::vector<UnitJob> &Jobs, const ParseEnvironment &Env,
                unsigned Threads, const ProgressFn &Progress,
                const FactsConsumer &Consume);

/// The same, with the results in job order whatever the thread count (Inputs
/// kept).
std::vector<TranslationUnitFacts>
parseAll(const std::vector<UnitJob> &Jobs, const ParseEnvironment &Env,
           unsigned Threads, const ProgressFn &Progress = nullptr);

} // namespace frontend
} // namespace tilefit

#endif
