//===- EmissionWalk.cpp ---------------------------------------------------===//
#include "tilefit/matchers/EmissionWalk.h"

#include "tilefit/matchers/EvaluatedCodeVisitor.h"
#include "tilefit/matchers/InstantiationRecorder.h"
#include "tilefit/model/Layout.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"

#include <algorithm>

using namespace clang;

namespace tilefit {
namespace matchers {
namespace {

using VarMap = llvm::DenseMap<const VarDecl *, size_t>;

class Builder;

/// One function's body: the events in source order, and whether it holds a
/// lambda.
class BodyScanner : public EvaluatedCodeVisitor<BodyScanner> {
public:
  BodyScanner(ASTContext &Ctx, Builder &B, bool InLambda)
      : EvaluatedCodeVisitor(Ctx), B(B), InLambda(InLambda) {}

  std::vector<EmissionEvent> Events;
  bool ContainsLambda = false;

  bool VisitDeclRefExpr(DeclRefExpr *E);
  bool VisitMemberExpr(MemberExpr *E);
  bool VisitCXXConstructExpr(CXXConstructExpr *E);
  void implicitCall(const FunctionDecl *FD) { referenced(FD); }
  bool TraverseLambdaExpr(LambdaExpr *E);
  bool TraverseCXXRecordDecl(CXXRecordDecl *RD);
  bool
  TraverseClassTemplateSpecializationDecl(ClassTemplateSpecializationDecl *) {
    return true;
  }

private:
  void referenced(const FunctionDecl *FD);
  Builder &B;
  bool InLambda;
};

/// The `__shared__` statics a function declares itself, block scopes in
/// pre-order: first the outermost block's, in declaration order, then each
/// nested block's in source order.
class StaticsCollector {
public:
  StaticsCollector(ASTContext &Ctx, const VarMap &Vars)
      : Ctx(Ctx), Vars(Vars) {}

  void collect(const Stmt *Body, std::vector<size_t> &Out) {
    if (!Body)
      return;
    std::vector<const Stmt *> Blocks;
    scope(Body, Out, Blocks);
    for (const Stmt *Blk : Blocks)
      collect(Blk, Out);
  }

private:
  /// Adds the statics declared directly in \p S's scope and lists the nested
  /// blocks.
  void scope(const Stmt *S, std::vector<size_t> &Out,
             std::vector<const Stmt *> &Blocks) {
    const auto *CS = dyn_cast<CompoundStmt>(S);
    if (!CS) {
      nested(S, Blocks);
      return;
    }
    for (const Stmt *Child : CS->body()) {
      if (const auto *DS = dyn_cast<DeclStmt>(Child)) {
        for (const Decl *D : DS->decls())
          if (const auto *VD = dyn_cast<VarDecl>(D))
            if (auto It = Vars.find(VD->getCanonicalDecl()); It != Vars.end())
              Out.push_back(It->second);
        continue;
      }
      nested(Child, Blocks);
    }
  }

  /// Finds the blocks that open inside \p S (branches, loop bodies, plain
  /// braces).
  void nested(const Stmt *S, std::vector<const Stmt *> &Blocks) {
    if (!S || isa<Expr>(S))
      return;
    if (const auto *If = dyn_cast<IfStmt>(S)) {
      bool Value = false;
      if (If->isConstexpr() && If->getCond() &&
          !If->getCond()->isValueDependent() &&
          If->getCond()->EvaluateAsBooleanCondition(Value, Ctx)) {
        nested(Value ? If->getThen() : If->getElse(), Blocks);
        return;
      }
    }
    if (isa<CompoundStmt>(S)) {
      Blocks.push_back(S);
      return;
    }
    for (const Stmt *Child : S->children())
      nested(Child, Blocks);
  }

  ASTContext &Ctx;
  const VarMap &Vars;
};

class Builder {
public:
  Builder(ASTContext &Ctx, const VarMap &Vars,
          const InstantiationRecorder &Instantiations)
      : Ctx(Ctx), Vars(Vars), Instantiations(Instantiations) {}

  EmissionProgram build() {
    struct Located {
      SourceLocation Loc;
      EmissionEvent E;
    };
    std::vector<Located> Top;
    // The unit, or the declarations of it the traversal is limited to (a
    // precompiled header's are left out; see ASTContext::setTraversalScope).
    auto Emit = [&](SourceLocation L, EmissionEvent E) {
      Top.push_back({L, E});
    };
    for (Decl *D : Ctx.getTraversalScope()) {
      if (const auto *TU = dyn_cast<TranslationUnitDecl>(D))
        walkContext(TU, Emit);
      else
        walkDecl(D, Emit);
    }
    const SourceManager &SM = Ctx.getSourceManager();
    std::stable_sort(
        Top.begin(), Top.end(), [&](const Located &A, const Located &B) {
          return SM.isBeforeInTranslationUnit(SM.getExpansionLoc(A.Loc),
                                              SM.getExpansionLoc(B.Loc));
        });
    for (const Located &L : Top)
      Program.TopLevel.push_back(L.E);
    drain();
    return std::move(Program);
  }

  /// The function's index. Its body is scanned later from a work list (template
  /// instantiations can chain deeply; no recursion), or at once with \p
  /// ScanNow. Nothing for a function without a body.
  std::optional<size_t> functionIndex(const FunctionDecl *FD,
                                      bool InLambda = false,
                                      bool ScanNow = false) {
    const FunctionDecl *Def = FD->getDefinition();
    if (!Def || !Def->hasBody())
      return std::nullopt;
    if (auto It = Index.find(Def); It != Index.end())
      return It->second;
    size_t I = Program.Functions.size();
    Index[Def] = I;
    EmissionFunction F;
    llvm::raw_string_ostream OS(F.Name);
    Def->getNameForDiagnostic(OS, Ctx.getPrintingPolicy(), /*Qualified=*/true);
    F.Nested = isNestedFunction(Def);
    F.IsTemplateInstance = isTemplateInstance(Def) && !F.Nested;
    F.InsideLambda = InLambda;
    if (F.IsTemplateInstance)
      if (const FunctionDecl *Pattern = Def->getTemplateInstantiationPattern())
        F.ReturnsAuto =
            Pattern->getDeclaredReturnType()->getContainedAutoType() != nullptr;
    Program.Functions.push_back(std::move(F));
    Defs.push_back(Def);
    if (ScanNow)
      scan(I);
    else
      Work.push_back(I);
    return I;
  }

  /// Scans every function listed so far, and those their scans list.
  void drain() {
    while (!Work.empty()) {
      size_t I = Work.back();
      Work.pop_back();
      scan(I);
    }
  }

  bool containsLambda(size_t I) const {
    return Program.Functions[I].ContainsLambda;
  }
  const VarMap &vars() const { return Vars; }

private:
  void scan(size_t I) {
    if (Scanned.size() <= I)
      Scanned.resize(I + 1, false);
    if (Scanned[I])
      return;
    Scanned[I] = true;
    const FunctionDecl *Def = Defs[I];
    const bool IsLambda = isa<CXXMethodDecl>(Def) &&
                          cast<CXXMethodDecl>(Def)->getParent()->isLambda();
    BodyScanner S(Ctx, *this, IsLambda || Program.Functions[I].InsideLambda);
    S.walkFunction(Def);
    std::vector<size_t> Statics;
    StaticsCollector(Ctx, Vars).collect(Def->getBody(), Statics);
    EmissionFunction &F = Program.Functions[I];
    F.Body = std::move(S.Events);
    F.ContainsLambda = S.ContainsLambda;
    F.Statics = std::move(Statics);
  }

  template <typename Emit> void walkContext(const DeclContext *DC, Emit &&Out) {
    for (const Decl *D : DC->decls())
      walkDecl(D, Out);
  }

  template <typename Emit> void walkDecl(const Decl *D, Emit &&Out) {
    if (const auto *ND = dyn_cast<NamespaceDecl>(D)) {
      walkContext(ND, Out);
    } else if (const auto *LS = dyn_cast<LinkageSpecDecl>(D)) {
      walkContext(LS, Out);
    } else if (const auto *VD = dyn_cast<VarDecl>(D)) {
      // Global-namespace variables are declared in the walk; namespace-scope
      // ones are G4.
      if (VD->getDeclContext()->getRedeclContext()->isTranslationUnit())
        if (auto It = Vars.find(VD->getCanonicalDecl()); It != Vars.end())
          Out(VD->getLocation(), {EmissionEvent::Kind::Variable, It->second});
    } else if (const auto *FTD = dyn_cast<FunctionTemplateDecl>(D)) {
      explicitInstantiations(FTD->specializations(), Out);
    } else if (const auto *CTD = dyn_cast<ClassTemplateDecl>(D)) {
      for (const ClassTemplateSpecializationDecl *Spec :
           CTD->specializations()) {
        if (Spec->getSpecializationKind() == TSK_ExplicitSpecialization) {
          walkContext(Spec, Out);
          continue;
        }
        for (const Decl *M : Spec->decls()) {
          if (const auto *MT = dyn_cast<FunctionTemplateDecl>(M))
            explicitInstantiations(MT->specializations(), Out);
          else if (const auto *MD = dyn_cast<CXXMethodDecl>(M))
            if (MD->getTemplateSpecializationKind() ==
                TSK_ExplicitInstantiationDefinition)
              instantiation(MD, Out);
        }
      }
    } else if (const auto *RD = dyn_cast<CXXRecordDecl>(D)) {
      if (RD->isThisDeclarationADefinition() && !RD->isDependentContext())
        walkContext(RD, Out);
    } else if (const auto *FD = dyn_cast<FunctionDecl>(D)) {
      if (FD->isThisDeclarationADefinition() && !FD->isTemplated() &&
          !isTemplateInstance(FD))
        if (auto I = functionIndex(FD, false, /*ScanNow=*/true))
          if (!Program.Functions[*I].Body.empty() ||
              !Program.Functions[*I].Statics.empty())
            Out(FD->getBeginLoc(), {EmissionEvent::Kind::Function, *I});
    }
  }

  template <typename Range, typename Emit>
  void explicitInstantiations(Range Specs, Emit &&Out) {
    for (const FunctionDecl *Spec : Specs)
      if (Spec->getTemplateSpecializationKind() ==
          TSK_ExplicitInstantiationDefinition)
        instantiation(Spec, Out);
  }

  /// An explicit instantiation definition lists the specialization where it
  /// stands. Sema instantiates it right there, which the recorder saw; the
  /// specialization's own point of instantiation may be an earlier implicit
  /// use.
  template <typename Emit>
  void instantiation(const FunctionDecl *Spec, Emit &&Out) {
    SourceLocation Where = Instantiations.parsedInstantiationPoint(Spec);
    if (Where.isInvalid())
      Where = Spec->getPointOfInstantiation();
    if (auto I = functionIndex(Spec))
      Out(Where, {EmissionEvent::Kind::Instantiate, *I});
  }

  ASTContext &Ctx;
  const VarMap &Vars;
  const InstantiationRecorder &Instantiations;
  EmissionProgram Program;
  llvm::DenseMap<const FunctionDecl *, size_t> Index;
  std::vector<const FunctionDecl *>
      Defs;                 ///< Defs[I] is function I's definition.
  std::vector<size_t> Work; ///< Listed, not yet scanned.
  std::vector<bool> Scanned;
};

void BodyScanner::referenced(const FunctionDecl *FD) {
  if (!isTemplateInstance(FD) || isNestedFunction(FD))
    return;
  if (auto I = B.functionIndex(FD))
    Events.push_back({EmissionEvent::Kind::Instantiate, *I});
}

bool BodyScanner::VisitDeclRefExpr(DeclRefExpr *E) {
  if (const auto *FD = dyn_cast<FunctionDecl>(E->getDecl())) {
    referenced(FD);
  } else if (const auto *VTS =
                 dyn_cast<VarTemplateSpecializationDecl>(E->getDecl())) {
    if (auto It = B.vars().find(VTS->getCanonicalDecl()); It != B.vars().end())
      Events.push_back({EmissionEvent::Kind::Variable, It->second});
  }
  return true;
}

bool BodyScanner::VisitMemberExpr(MemberExpr *E) {
  if (const auto *MD = dyn_cast<CXXMethodDecl>(E->getMemberDecl()))
    referenced(MD);
  return true;
}

bool BodyScanner::VisitCXXConstructExpr(CXXConstructExpr *E) {
  referenced(E->getConstructor());
  return true;
}

bool BodyScanner::TraverseLambdaExpr(LambdaExpr *E) {
  ContainsLambda = true;
  for (Expr *Init : E->capture_inits())
    if (Init)
      TraverseStmt(Init);
  // The lambda's body completes here, before the enclosing function. A generic
  // lambda's body exists once per specialization of its call operator.
  std::vector<const FunctionDecl *> Bodies;
  if (const FunctionTemplateDecl *FTD = E->getDependentCallOperator()) {
    for (const FunctionDecl *Spec : FTD->specializations())
      Bodies.push_back(Spec);
  } else {
    Bodies.push_back(E->getCallOperator());
  }
  for (const FunctionDecl *Body : Bodies)
    if (auto I = B.functionIndex(Body, InLambda))
      Events.push_back({EmissionEvent::Kind::Function, *I});
  return true;
}

bool BodyScanner::TraverseCXXRecordDecl(CXXRecordDecl *RD) {
  // A local class: its member functions complete at the end of the class,
  // before the enclosing function; a lambda inside them counts as the enclosing
  // function's.
  if (RD->isLambda() || !RD->isThisDeclarationADefinition())
    return true;
  for (const Decl *D : RD->decls()) {
    const auto *MD = dyn_cast<CXXMethodDecl>(D);
    if (!MD || !MD->doesThisDeclarationHaveABody())
      continue;
    if (auto I = B.functionIndex(MD, InLambda, /*ScanNow=*/true)) {
      Events.push_back({EmissionEvent::Kind::Function, *I});
      ContainsLambda |= B.containsLambda(*I);
    }
  }
  return true;
}

} // namespace

EmissionProgram
buildEmissionProgram(ASTContext &Ctx, const VarMap &VarIndex,
                     const InstantiationRecorder &Instantiations) {
  EmissionProgram P = Builder(Ctx, VarIndex, Instantiations).build();
  pruneEmission(P);
  return P;
}

} // namespace matchers
} // namespace tilefit
