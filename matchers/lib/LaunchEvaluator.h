//===- LaunchEvaluator.h - The values of a launch's arguments ---*- C++ -*-===//
//
// The interprocedural evaluator LaunchSites.cpp reads launches and opt-ins
// with: integers and dim3 values, kernels named through variables and
// parameters, cudaLaunchConfig_t fields, followed through locals initialized
// once, braced aggregates, constructors and the call sites of a launch helper.
// Finding the launches is LaunchSites.cpp's; this file only evaluates.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_MATCHERS_LAUNCHEVALUATOR_H
#define TILEFIT_MATCHERS_LAUNCHEVALUATOR_H

#include "tilefit/model/Facts.h"

#include "clang/AST/APValue.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>
#include <string>

namespace tilefit {
namespace matchers {

using clang::APValue;
using clang::ASTContext;
using clang::CallExpr;
using clang::CXXConstructExpr;
using clang::Expr;
using clang::FieldDecl;
using clang::FunctionDecl;
using clang::ParmVarDecl;
using clang::QualType;
using clang::SourceLocation;
using clang::VarDecl;
using llvm::StringRef;

/// Evaluates launch arguments: integers, and dim3 values as the product of
/// their fields.
///
/// An evaluator may stand for one call of its function (\p Site, made in \p
/// Caller's function): then a parameter is the argument the call passes,
/// evaluated in the caller. That is how a launch inside a helper
/// (`ClusterLauncher::launch(grid, cluster, block, smem, stream, kernel,
/// params)`) is read with the values of each call site.
class LaunchEvaluator {
public:
  /// \p ReadOnly (null: none) keeps the answers of neverWritten between
  /// evaluations.
  LaunchEvaluator(ASTContext &Ctx, const FunctionDecl *Fn,
                  llvm::DenseMap<const VarDecl *, bool> *ReadOnly = nullptr,
                  const CallExpr *Site = nullptr,
                  LaunchEvaluator *Caller = nullptr)
      : Ctx(Ctx), Fn(Fn), ReadOnly(ReadOnly), Site(Site), Caller(Caller) {}

  const FunctionDecl *function() const { return Fn; }
  /// Whether \p F is the function of this evaluator or of one of its callers.
  bool onChain(const FunctionDecl *F) const;
  /// The evaluator of the outermost call of the chain.
  LaunchEvaluator &top() { return Caller ? Caller->top() : *this; }
  /// Binds the outermost function's parameters to the arguments of \p Call,
  /// made in \p Outer's function (null, null: unbinds).
  void bind(const CallExpr *Call, LaunchEvaluator *Outer);

  /// Set when a value or kernel depended on a parameter of this (outermost)
  /// function: one of its call sites may tell it.
  bool ReachedParameter = false;
  /// The argument of the call this (outermost) evaluator's callee is bound to
  /// that a kernel could not be told from.
  const Expr *KernelGivenUp = nullptr;

  /// Whether \p VD is a local of the function, initialized and never written
  /// afterwards.
  bool initializedOnly(const VarDecl *VD);

  std::optional<uint64_t> evaluate(const Expr *E, Reason &Why, int Depth = 0);

  /// \p V as a size: an integer, or a dim3's product.
  std::optional<uint64_t> number(const APValue &V, Reason &Why);

  /// \p E as a block's shape (x, y, z): an integer is (n, 1, 1), a dim3 its
  /// fields; empty when not a constant.
  std::vector<uint64_t> shape(const Expr *E);
  static std::vector<uint64_t> shapeOf(const APValue &V);

  /// An integer condition or expression over constants and locals initialized
  /// once and only read (`smem_size >= (48 << 10)`): its value, or nothing when
  /// it depends on anything else.
  std::optional<int64_t> condition(const Expr *E, int Depth = 0);

  /// The kernel a launch API's function argument (or the callee of `<<<>>>`)
  /// names: `k`, `&k<32>`, `(const void *)k`, `reinterpret_cast<void *>(k)`,
  /// `*k`, a variable initialized with one of those (`auto kernel_fptr =
  /// gemm_device<...>;`) that the function never writes to afterwards, or a
  /// parameter bound to one at a call site.
  const FunctionDecl *kernel(const Expr *E, int Depth = 0);

  /// What field \p Name of the `cudaLaunchConfig_t` that \p Config points to
  /// holds at \p Before: the last assignment to it before then in the function
  /// (through a reference to the configuration too), else its initializer
  /// (braced; or the call of a function that returns a local configuration,
  /// read there with the call's arguments). Zero for a field value-initialized.
  /// False in \p Found when \p Config is not such a configuration.
  std::optional<APValue> configField(const Expr *Config, StringRef Name,
                                     SourceLocation Before, bool &Found,
                                     Reason &Why, int Depth = 0);

private:
  /// The argument the bound call passes for \p P, a parameter of this function.
  const Expr *argumentFor(const ParmVarDecl *P) const;
  SourceLocation siteLoc() const;

  /// The fields \p Path of the object \p C constructs, as its constructor
  /// leaves them: the last assignment in its body, else its member
  /// initializer, read with \p C's arguments.
  std::optional<APValue> constructed(const CXXConstructExpr *C,
                                     llvm::ArrayRef<const FieldDecl *> Path,
                                     Reason &Why, int Depth);

  /// `this->a.b` in a member function: true, with \p Path the fields from
  /// `a` down.
  static bool rootedAtThis(const Expr *E,
                           llvm::SmallVectorImpl<const FieldDecl *> &Path);

  /// Whether \p P is a parameter of this function no call binds; notes it for
  /// the caller.
  bool ownParameter(const ParmVarDecl *P);

  static APValue integer(int64_t V);

  /// \p E's value: a compile-time constant, or followed through parameters
  /// bound at a call site, locals initialized once and only read, fields of
  /// braced aggregates, dim3 values built from such parts, and arithmetic over
  /// them.
  std::optional<APValue> value(const Expr *E, Reason &Why, int Depth);

  /// The value of the fields \p Path (outermost first) of \p Base, read out of
  /// the braced initializers, bound parameters and dim3 constructions it is
  /// built from.
  std::optional<APValue> field(const Expr *Base,
                               llvm::ArrayRef<const FieldDecl *> Path,
                               Reason &Why, int Depth);

  static bool isDim3(QualType T);

  /// A dim3 constructed from values this evaluator reads: `dim3(a, b)`, `{x, y,
  /// z}`.
  std::optional<APValue> dim3Value(const Expr *E, int Depth);

  /// The local variable \p E names, through `a.b` fields and references bound
  /// to a field of another local (`auto &launch_config =
  /// cluster_launch_config.launch_config;`); \p Path gets the fields from that
  /// variable down, outermost first.
  const VarDecl *rootOf(const Expr *E,
                        llvm::SmallVectorImpl<const FieldDecl *> &Path,
                        int Depth = 0);

  /// What the fields \p Path of the local \p Root hold at \p Before (see
  /// configField).
  std::optional<APValue> stateOf(const VarDecl *Root,
                                 llvm::ArrayRef<const FieldDecl *> Path,
                                 SourceLocation Before, Reason &Why, int Depth);

  /// The fields \p Path of what \p Init initializes.
  std::optional<APValue> initialValue(const Expr *Init,
                                      llvm::ArrayRef<const FieldDecl *> Path,
                                      Reason &Why, int Depth);

  /// The one local variable every `return` of \p Fn returns, if there is one.
  static const VarDecl *returnedLocal(const FunctionDecl *Fn);

  std::optional<uint64_t> fromValue(const APValue &V, Reason &Why);

  /// "it depends on 'n', a function parameter" and the like.
  Reason describeRuntimeValue(const Expr *E);

  ASTContext &Ctx;
  const FunctionDecl *Fn;
  llvm::DenseMap<const VarDecl *, bool> *ReadOnly;
  const CallExpr *Site; ///< The call this evaluator stands for, if any.
  /// The construction this evaluator (of a constructor) stands for, if any.
  const CXXConstructExpr *Construct = nullptr;
  LaunchEvaluator *Caller; ///< The evaluator of the function that makes it.
};

/// Reads a launch's block size (\p Block) and dynamic bytes (\p Bytes; none
/// written: \p BytesZero, else not found) into \p L.
void evaluateInto(LaunchEvaluator &Eval, const Expr *Bytes, bool BytesZero,
                  const Expr *Block, LaunchSite &L);

/// A cudaLaunchKernelEx/ExC launch's block size and bytes, read out of its
/// configuration.
void evaluateConfig(LaunchEvaluator &Eval, const Expr *Config,
                    SourceLocation Launch, LaunchSite &L);

} // namespace matchers
} // namespace tilefit

#endif
