//===- ExtentConstraints.cpp - What static_asserts require ----------------===//
//
// The conditions of a kernel's own `static_assert`s (not its lambdas'), each
// read as a conjunction of comparisons: a remainder or a power-of-two mask
// compared with 0, or a name compared with a value. A side that names a
// template parameter, a variable or an enumerator is the name constrained;
// the other side is evaluated at the instantiation's values.
//
//===----------------------------------------------------------------------===//
#include "ExtentConstraints.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

using namespace clang;

namespace tilefit {
namespace matchers {
namespace {

/// The conditions of the static_asserts in a body, lambdas' left out.
struct StaticAsserts : RecursiveASTVisitor<StaticAsserts> {
  std::vector<const Expr *> Conditions;
  bool VisitStaticAssertDecl(StaticAssertDecl *D) {
    if (D->getAssertExpr())
      Conditions.push_back(D->getAssertExpr());
    return true;
  }
  bool TraverseLambdaExpr(LambdaExpr *) { return true; }
};

/// Parentheses and implicit casts, not the substitution that names a template
/// parameter (which IgnoreParenImpCasts strips too).
const Expr *strip(const Expr *E) {
  while (true) {
    if (const auto *P = dyn_cast<ParenExpr>(E))
      E = P->getSubExpr();
    else if (const auto *C = dyn_cast<ImplicitCastExpr>(E))
      E = C->getSubExpr();
    else if (const auto *F = dyn_cast<FullExpr>(E))
      E = F->getSubExpr();
    else
      return E;
  }
}

/// The name \p E is (a template parameter, a variable, an enumerator); ""
/// for anything else.
std::string constrainedName(const Expr *E) {
  E = strip(E);
  // A template parameter, substituted in the instantiation.
  if (const auto *S = dyn_cast<SubstNonTypeTemplateParmExpr>(E))
    return S->getParameter()->getName().str();
  if (const auto *D = dyn_cast<DeclRefExpr>(E))
    if (isa<NonTypeTemplateParmDecl, VarDecl, EnumConstantDecl>(D->getDecl()))
      return D->getDecl()->getName().str();
  return "";
}

/// Reads static_assert conditions into the constraints they state.
class ConstraintReader {
public:
  ConstraintReader(ASTContext &Ctx, std::vector<ExtentConstraint> &Out)
      : Ctx(Ctx), Out(Out) {}

  /// The constraints \p E states, appended to Out.
  void read(const Expr *E) {
    const auto *B = dyn_cast<BinaryOperator>(strip(E));
    if (!B)
      return;
    const Expr *L = strip(B->getLHS()), *R = strip(B->getRHS());
    switch (B->getOpcode()) {
    case BO_LAnd:
      read(L);
      read(R);
      return;
    case BO_EQ:
      readEquality(L, R);
      return;
    case BO_GE:
    case BO_GT:
    case BO_LE:
    case BO_LT:
      readComparison(B->getOpcode(), L, R);
      return;
    default:
      return;
    }
  }

private:
  using K = ExtentConstraint::Kind;

  /// The value of \p E, a non-negative integer constant.
  std::optional<uint64_t> constOf(const Expr *E) const {
    E = E->IgnoreParenImpCasts();
    Expr::EvalResult R;
    if (E->isValueDependent() || !E->EvaluateAsInt(R, Ctx) ||
        R.Val.getInt().isNegative())
      return std::nullopt;
    return R.Val.getInt().getZExtValue();
  }

  /// `L == R`: a remainder or a power-of-two mask compared with 0.
  void readEquality(const Expr *L, const Expr *R) {
    // `0 == BM % 48` as `BM % 48 == 0` (in an instantiation both sides are
    // constants).
    if (!isa<BinaryOperator>(L))
      std::swap(L, R);
    const auto *Op = dyn_cast<BinaryOperator>(L);
    if (constOf(R) != 0u || !Op)
      return;
    const Expr *X = strip(Op->getLHS()), *Y = strip(Op->getRHS());
    if (Op->getOpcode() == BO_Rem) {
      if (auto V = constOf(Y); V && *V > 0 && !constrainedName(X).empty())
        Out.push_back({constrainedName(X), K::MultipleOf, *V});
      if (auto V = constOf(X); V && *V > 0 && !constrainedName(Y).empty())
        Out.push_back({constrainedName(Y), K::DivisorOf, *V});
    } else if (Op->getOpcode() == BO_And) {
      const auto *Minus = dyn_cast<BinaryOperator>(strip(Y));
      if (Minus && Minus->getOpcode() == BO_Sub &&
          !constrainedName(X).empty() &&
          constrainedName(Minus->getLHS()) == constrainedName(X) &&
          constOf(Minus->getRHS()) == 1u)
        Out.push_back({constrainedName(X), K::PowerOfTwo, 0});
    }
  }

  /// `L >= R`, `L > R`, `L <= R` or `L < R` (\p Opc).
  void readComparison(BinaryOperatorKind Opc, const Expr *L, const Expr *R) {
    // Each named side, the other at its value: `BM >= 96`, and `16 <= BM` as
    // `BM >= 16`.
    bound(L, R, Opc);
    bound(R, L,
          Opc == BO_GE   ? BO_LE
          : Opc == BO_GT ? BO_LT
          : Opc == BO_LE ? BO_GE
                         : BO_GT);
  }

  /// The bound `Name Opc Other` sets on \p Name, \p Other at its value.
  void bound(const Expr *Name, const Expr *Other, BinaryOperatorKind Opc) {
    auto V = constOf(Other);
    if (constrainedName(Name).empty() || !V)
      return;
    if (Opc == BO_GE || Opc == BO_GT)
      Out.push_back({constrainedName(Name), K::AtLeast, *V + (Opc == BO_GT)});
    else if (*V > 0 || Opc == BO_LE)
      Out.push_back({constrainedName(Name), K::AtMost, *V - (Opc == BO_LT)});
  }

  ASTContext &Ctx;
  std::vector<ExtentConstraint> &Out;
};

} // namespace

std::vector<ExtentConstraint> constraintsOf(const FunctionDecl *Kernel,
                                            ASTContext &Ctx) {
  const FunctionDecl *F = Kernel;
  if (!F->getBody())
    return {};
  StaticAsserts A;
  A.TraverseStmt(F->getBody());
  std::vector<ExtentConstraint> Out;
  ConstraintReader Reader(Ctx, Out);
  for (const Expr *C : A.Conditions)
    Reader.read(C);
  return Out;
}

} // namespace matchers
} // namespace tilefit
