//===- ScopeFacts.h - Constant memory, per-thread arrays, TMEM --*- C++ -*-===//
//
// The facts about the on-chip scopes besides shared memory, translated from
// Clang's AST: every `__constant__` variable the unit defines (with the walk
// that orders them), the local arrays that count as per-thread storage, and the
// Tensor Memory requests (`tcgen05.alloc` in inline PTX, and the library calls
// that wrap it). SharedMemoryCollector owns the collector and asks the helpers
// while it walks each kernel's call graph; the model does the arithmetic.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_MATCHERS_SCOPEFACTS_H
#define TILEFIT_MATCHERS_SCOPEFACTS_H

#include "tilefit/model/Facts.h"

#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "llvm/ADT/DenseSet.h"

#include <optional>
#include <vector>

namespace clang {
class ASTContext;
class CallExpr;
class FunctionDecl;
class GCCAsmStmt;
class VarDecl;
} // namespace clang

namespace tilefit {
namespace matchers {

class InstantiationRecorder;

/// The records of \p Vars (a unit's `__shared__` or `__constant__` variables,
/// one declaration each): names, position, layout, and the facts the emission
/// order needs (namespaces in order of first opening, declaration order).
std::vector<SharedVar>
describeVariables(clang::ASTContext &Ctx,
                  const std::vector<const clang::VarDecl *> &Vars);

/// Finds every `__constant__` variable the unit defines: written `__constant__`
/// (not the attribute Clang adds to `constexpr` variables in device code, which
/// nvcc does not place in constant memory), with a definition here (an `extern`
/// declaration's storage is elsewhere), including variable template
/// specializations, excluding template patterns.
class ConstantCollector
    : public clang::ast_matchers::MatchFinder::MatchCallback {
public:
  void registerMatchers(clang::ast_matchers::MatchFinder &Finder);
  void
  run(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;

  /// Fills \p Out.ConstantVars and \p Out.ConstantEmission.
  void finish(clang::ASTContext &Ctx,
              const InstantiationRecorder &Instantiations,
              TranslationUnitFacts &Out);

private:
  llvm::DenseSet<const clang::VarDecl *> Seen;
  std::vector<const clang::VarDecl *>
      Vars; ///< Canonical declarations, in match order.
};

/// Whether \p VD is per-thread storage that counts as a register tile: a local
/// variable with automatic storage (not a parameter, not static, not
/// `__shared__`) whose type is an array, or a class that holds an array among
/// its fields or bases at any depth (wmma fragments, cute::array,
/// cutlass::Array, std::array). References and pointers hold no storage.
bool isPerThreadArray(const clang::ASTContext &Ctx, const clang::VarDecl *VD);

/// The record of a per-thread array: name, function, position and layout.
SharedVar describeLocalArray(const clang::ASTContext &Ctx,
                             const clang::VarDecl *VD);

/// Whether \p FD is a Tensor Memory allocator tilefit models by its call
/// (`cute::TMEM::Allocator1Sm::allocate`, `cute::TMEM::Allocator2Sm::allocate`,
/// `cuda::ptx::tcgen05_alloc`): the `tcgen05.alloc` inside it is then not
/// counted again.
bool isTmemAllocator(const clang::FunctionDecl *FD);

/// The `tcgen05.alloc` instructions in \p S, an asm statement of \p Fn, with
/// their column counts where the operand is an immediate or a constant input.
void tmemAllocationsInAsm(clang::ASTContext &Ctx, const clang::FunctionDecl *Fn,
                          const clang::GCCAsmStmt *S,
                          std::vector<TmemAllocation> &Out);

/// \p E as a Tensor Memory request when it calls one of the allocators
/// isTmemAllocator names.
std::optional<TmemAllocation> tmemAllocationCall(clang::ASTContext &Ctx,
                                                 const clang::FunctionDecl *Fn,
                                                 const clang::CallExpr *E);

} // namespace matchers
} // namespace tilefit

#endif
