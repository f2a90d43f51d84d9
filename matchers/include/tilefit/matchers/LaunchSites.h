//===- LaunchSites.h --------------------------------------------*- C++ -*-===//
//
// Kernel launches and attributes in host code.
//
// Launches (`<<<...>>>`, cudaLaunchKernel, cudaLaunchCooperativeKernel,
// cudaLaunchKernelEx and cudaLaunchKernelExC with a cudaLaunchConfig_t),
// cudaFuncSetAttribute calls, and __launch_bounds__, each tied to the kernel
// (instantiation) it concerns, with their sizes evaluated where they are
// compile-time constants and the reason where they are not.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_MATCHERS_LAUNCHSITES_H
#define TILEFIT_MATCHERS_LAUNCHSITES_H

#include "tilefit/model/Facts.h"

#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "llvm/ADT/DenseMap.h"

#include <memory>
#include <vector>

namespace clang {
class ASTContext;
class CallExpr;
class Expr;
class FunctionDecl;
class Stmt;
} // namespace clang

namespace tilefit {
namespace matchers {

class LaunchEvaluator;

/// Collects launches and attribute calls; register its matchers, run the
/// finder (MatchFinder::matchAST, or matchInstantiated: its matchers match
/// calls, and what is in a template pattern is dropped), then read.
class LaunchCollector : public clang::ast_matchers::MatchFinder::MatchCallback {
public:
  void registerMatchers(clang::ast_matchers::MatchFinder &Finder);
  void
  run(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;

  /// The kernel each launch or call concerns (its definition), in match order.
  std::vector<std::pair<const clang::FunctionDecl *, LaunchSite>> Launches;
  std::vector<std::pair<const clang::FunctionDecl *, AttributeCall>> Attributes;
  /// Launches with a dynamic shared memory size whose kernel could not be told
  /// (a function pointer chosen at run time, say): LostLaunch::Unresolved set.
  std::vector<LostLaunch> Unresolved;
  /// `<<<>>>` launches of kernel templates that an error kept Clang from
  /// building.
  std::vector<LostLaunch> Lost;

  LaunchCollector();
  ~LaunchCollector() override;

private:
  /// Reads the launch or attribute call \p Matched with \p Inner, whose chain
  /// of bindings ends at \p Top (\p At: the call \p Top stands for, null at
  /// first), and records it; when what it lacks depends on the parameters of \p
  /// Top's function, it is read again at each call of that function in the unit
  /// instead (a launch helper).
  void follow(clang::ASTContext &Ctx, const clang::Stmt *Matched,
              LaunchEvaluator &Inner, LaunchEvaluator &Top,
              const clang::CallExpr *At, int Depth);
  /// What the launch or attribute call follow() reads knew by itself, before
  /// any call of its function told it more: a reading at a call is placed at
  /// that call only where the call decided one of these.
  struct KnownAtLaunch {
    bool Kernel = false, Bytes = false, Threads = false, Value = false;
  } AtLaunch;
  /// The calls of \p F in the unit's own code, from functions that are not
  /// template patterns.
  llvm::ArrayRef<const clang::CallExpr *> callsTo(clang::ASTContext &Ctx,
                                                  const clang::FunctionDecl *F);

  /// The function whose body holds \p Call (a lambda's call operator inside a
  /// lambda), in the unit's own code; null outside any.
  const clang::FunctionDecl *enclosingFunction(clang::ASTContext &Ctx,
                                               const clang::Stmt *Call);

  class FunctionIndex;
  std::unique_ptr<FunctionIndex> Index; ///< Built at the first match.
  /// Per local variable: whether its function only reads it after its
  /// initializer. Every launch and opt-in of a function asks about the same
  /// locals, each answer a walk of the function's body.
  llvm::DenseMap<const clang::VarDecl *, bool> ReadOnly;
};

/// After a host-side parse's finder has run \p Collector: its launches and
/// attribute calls, grouped by kernel under the names ptxas prints.
std::vector<HostKernelCalls> hostKernelCalls(clang::ASTContext &Ctx,
                                             const LaunchCollector &Collector);

/// \p E's value when it is a non-negative compile-time constant in \p Fn
/// (literals, constexpr, template arguments of an instantiation, locals
/// initialized once and only read); otherwise nothing, and \p Why says what it
/// depends on ("it depends on 'n', a function parameter").
std::optional<uint64_t> evaluateConstant(clang::ASTContext &Ctx,
                                         const clang::FunctionDecl *Fn,
                                         const clang::Expr *E, Reason &Why);

/// The size a `// tilefit-dynamic-smem: N` comment on \p Line states (`N`,
/// `N KiB`, `N MiB`), for a launch whose size tilefit cannot compute; nothing
/// when the line has no such comment.
std::optional<uint64_t> parseStatedDynamicSize(llvm::StringRef Line);

/// The kernel's __launch_bounds__, evaluated.
std::optional<LaunchBounds> launchBoundsOf(const clang::FunctionDecl *Kernel);

} // namespace matchers
} // namespace tilefit

#endif
