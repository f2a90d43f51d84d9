//===- ParseActions.h - What one parse of a unit collects --------*- C++
//-*-===//
//
// The frontend actions of one parse: the device side's (every fact of the unit,
// SharedMemoryCollector) and the host side's (launches and attribute calls
// only), with what each hands back besides (ParseOutcome) and what it is told
// about the headers it loads precompiled (LoadedHeaders).
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_FRONTEND_PARSEACTIONS_H
#define TILEFIT_FRONTEND_PARSEACTIONS_H

#include "ErrorCollector.h"
#include "SourceFixups.h"

#include "tilefit/frontend/HeaderPch.h"
#include "tilefit/frontend/Parse.h"
#include "tilefit/matchers/KernelNames.h"
#include "tilefit/model/Facts.h"

#include "clang/Basic/SourceLocation.h"
#include "clang/Frontend/FrontendAction.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tilefit {
namespace frontend {

/// What the device-side parse hands back besides the facts.
struct ParseOutcome {
  ErrorCollector *Errors = nullptr;
  bool AllowFixups =
      false; ///< Look for source fix-ups (FixupRounds times at most).
  bool Relocatable = false;
  /// Slice device function templates' bodies before instantiation
  /// (matchers/BodySlicer.h; ParseEnvironment::SliceBodies).
  bool SliceBodies = false;
  /// Why the sliced parse cannot stand and the unit is to be parsed again with
  /// every body whole; none when it stands.
  Reason SliceAgain;
  std::vector<TextEdit>
      Fixups; ///< Found: the unit is to be parsed again with them.
  /// Blocks of kernels or launches the parse skips and nvcc compiles
  /// (NvccOnlyCode.h).
  std::vector<Diagnostic> NvccOnly;
  /// The parse skipped a block of the project's own with launches
  /// (NvccOnlyCode.h).
  bool SkippedHostCalls = false;
  /// Where `__LINE__` was expanded in the main file (its tokens).
  std::vector<clang::SourceLocation> Lines;
  /// One of them may reach a fact (FactsMemo.h).
  bool LineDependent = false;
  /// The unit's `__CUDA_ARCH__` conditionals, for nvcc's module id, outside
  /// tilefit's own headers (under ResourceInclude).
  matchers::ArchConditionals Arch;
  std::string ResourceInclude;
};

/// What a parse loads in place of headers, as its traversal needs to know.
struct LoadedHeaders {
  /// A preamble of the file's own headers (PreambleStore), or its leading
  /// #include lines precompiled (HeaderPch): the traversal covers those.
  bool OwnHeaders = false;
  /// For the latter, the record of what to visit of them
  /// (HeaderPchStore::scope); empty if none.
  std::string PrefixScope;
  /// And what its build saw of the directives the parse watches in its own
  /// code (HeaderPchStore::directives): the parse's own, for those headers.
  PrefixDirectives Directives;
  /// The records the first parse that loaded the header made of its
  /// declarations (HeaderPchStore::record, PreambleStore::record; empty if
  /// none), and where to keep one a parse makes (null: nowhere).
  std::function<std::string(HeaderRecord)> LoadRecord;
  std::function<void(HeaderRecord, const std::string &)> StoreRecord;
};

/// The device-side parse: every fact of the unit into \p Out.
std::unique_ptr<clang::FrontendAction>
makeCollectAction(TranslationUnitFacts &Out, LoadedHeaders Loaded,
                  ParseOutcome &Outcome);

/// The host-side parse: the launches and attribute calls of host code into
/// \p Out, the files it read into \p Inputs.
std::unique_ptr<clang::FrontendAction>
makeHostAction(std::vector<HostKernelCalls> &Out,
               std::vector<std::string> &Inputs, LoadedHeaders Loaded,
               ParseOutcome &Outcome);

} // namespace frontend
} // namespace tilefit

#endif
