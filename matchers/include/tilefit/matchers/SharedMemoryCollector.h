//===- SharedMemoryCollector.h - Kernels and __shared__ storage -*- C++ -*-===//
//
// AST matchers that find, in one translation unit parsed in CUDA device mode,
// every kernel (each template instantiation its own) and every `__shared__`
// variable, and a walk of each kernel's call graph that records which variables
// it reaches; along the same walk, the per-thread arrays and Tensor Memory
// requests of each kernel, and the unit's `__constant__` variables
// (ScopeFacts.h). The callbacks only translate: Clang locations become
// SourcePos, Clang types become layouts; the model decides the rest.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_MATCHERS_SHAREDMEMORYCOLLECTOR_H
#define TILEFIT_MATCHERS_SHAREDMEMORYCOLLECTOR_H

#include "tilefit/matchers/KernelNames.h"
#include "tilefit/matchers/ParseErrors.h"
#include "tilefit/model/Facts.h"

#include "clang/ASTMatchers/ASTMatchFinder.h"

#include <memory>
#include <optional>
#include <vector>

namespace clang {
class ASTContext;
class FunctionDecl;
class VarDecl;
} // namespace clang

namespace tilefit {
namespace matchers {

class BodySlicer;
class ConstantCollector;
class InstantiationRecorder;
class LaunchCollector;

class SharedMemoryCollector {
public:
  SharedMemoryCollector();
  ~SharedMemoryCollector();

  /// Adds the matchers to \p Finder; the collector must outlive the match run.
  /// They match variables, functions and calls, and keep nothing templated:
  /// the finder may be run by matchInstantiated (MatchInstantiated.h).
  void registerMatchers(clang::ast_matchers::MatchFinder &Finder);

  /// After the finder has run over \p Ctx: walks each kernel's call graph and
  /// fills \p Out.Vars, \p Out.Kernels, \p Out.LocalArrays and \p
  /// Out.ConstantVars. \p Errors are the parse's errors (empty for a unit
  /// without): each kernel they may have changed gets KernelFacts::Error. The
  /// preprocessor's record of the unit's `__CUDA_ARCH__` conditionals, for
  /// kernel names (KernelNamer); it must outlive finish().
  void setArchConditionals(const ArchConditionals *A) { Arch = A; }
  /// The parse's body slicing (BodySlicer.h), if it ran: what it left out is
  /// recorded with each function. It must outlive finish().
  void setSlicer(const BodySlicer *S) { Slicer = S; }
  /// The traversal scope holds the unit's declarations in their order, with
  /// the header walk's record (KernelNamer::searchModuleIdInScope).
  void searchModuleIdInScope(bool InScope) { ModuleIdInScope = InScope; }
  /// After finish(): why the unit is to be parsed again whole, if it is: a
  /// function the kernels reach was instantiated from a sliced template with
  /// arguments the slicing cannot vouch for (BodySlicer::sound), or a
  /// `__shared__` variable is passed to a parameter whose uses slicing left
  /// out (BodySlicer::droppedUses).
  const std::optional<Reason> &slicedUnsoundly() const { return Unsound; }

  void finish(clang::ASTContext &Ctx,
              const InstantiationRecorder &Instantiations,
              llvm::ArrayRef<ParseError> Errors, TranslationUnitFacts &Out);

private:
  class SharedVarCallback;
  class KernelCallback;
  std::unique_ptr<SharedVarCallback> Vars;
  std::unique_ptr<KernelCallback> Kernels;
  std::unique_ptr<LaunchCollector> Launches;
  std::unique_ptr<ConstantCollector> Constants;
  const ArchConditionals *Arch = nullptr;
  bool ModuleIdInScope = false;
  const BodySlicer *Slicer = nullptr;
  std::optional<Reason> Unsound;
};

} // namespace matchers
} // namespace tilefit

#endif
