//===- ArgumentFlow.cpp - Which parameters receive shared memory ----------===//
#include "ArgumentFlow.h"

#include "CallArguments.h"

#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"

namespace tilefit {
namespace matchers {

using namespace clang;

namespace {
/// A parameter index as a position (SliceNames.h), saturated.
unsigned indexOf(unsigned I) { return I < 63 ? I : 63; }
} // namespace

/// The calls of one body, lambdas' bodies in it included (a lambda's own
/// parameters are its call operator's).
class ArgumentScan : public RecursiveASTVisitor<ArgumentScan> {
public:
  explicit ArgumentScan(ArgumentFlow &Flow) : Flow(Flow) {}
  bool VisitCallExpr(CallExpr *E) { return call(E); }
  bool VisitCXXConstructExpr(CXXConstructExpr *E) { return call(E); }

private:
  bool call(const Expr *E) {
    llvm::SmallVector<const Expr *, 8> Args;
    unsigned Shift = 0;
    const FunctionDecl *Callee = resolvedCall(E, Args, Shift);
    if (!Callee)
      return true;
    Callee = Callee->getCanonicalDecl();
    for (unsigned I = Shift; I < Args.size(); ++I) {
      const DeclRefExpr *Ref = namedArgument(Args[I]);
      if (!Ref)
        continue;
      if (const auto *P = dyn_cast<ParmVarDecl>(Ref->getDecl())) {
        if (const auto *Owner = dyn_cast<FunctionDecl>(P->getDeclContext()))
          Flow.passes(Owner->getCanonicalDecl(), P->getFunctionScopeIndex(),
                      Callee, I - Shift);
      } else if (const auto *VD = dyn_cast<VarDecl>(Ref->getDecl());
                 VD && VD->hasAttr<CUDASharedAttr>()) {
        Flow.receives(Callee, I - Shift);
      }
    }
    return true;
  }
  ArgumentFlow &Flow;
};

void ArgumentFlow::scan(const FunctionDecl *FD) {
  if (!FD->hasBody() || !Scanned.insert(FD->getCanonicalDecl()).second)
    return;
  ArgumentScan Scan(*this);
  Scan.TraverseStmt(FD->getBody());
  // Member initializers pass arguments too.
  if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(FD->getDefinition()))
    for (const CXXCtorInitializer *Init : Ctor->inits())
      Scan.TraverseStmt(Init->getInit());
}

Positions ArgumentFlow::incoming(const FunctionDecl *FD) const {
  return Incoming.lookup(FD->getCanonicalDecl());
}

void ArgumentFlow::receives(const FunctionDecl *Callee, unsigned At) {
  ++Learnt;
  llvm::SmallVector<std::pair<const FunctionDecl *, unsigned>, 8> Work{
      {Callee, At}};
  while (!Work.empty()) {
    const auto [FD, Index] = Work.pop_back_val();
    Positions &In = Incoming[FD];
    const Positions Bit = positionOf(indexOf(Index));
    if (In & Bit)
      continue;
    In |= Bit;
    if (auto It = Edges.find(FD); It != Edges.end())
      for (const Edge &E : It->second)
        if (indexOf(E.From) == indexOf(Index))
          Work.push_back({E.To, E.At});
  }
}

void ArgumentFlow::passes(const FunctionDecl *From, unsigned Index,
                          const FunctionDecl *To, unsigned At) {
  ++Learnt;
  Edges[From].push_back({Index, To, At});
  if (incoming(From) & positionOf(indexOf(Index)))
    receives(To, At);
}

} // namespace matchers
} // namespace tilefit
