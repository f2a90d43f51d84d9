//===- LaunchSites.cpp ----------------------------------------------------===//
#include "tilefit/matchers/LaunchSites.h"

#include "tilefit/matchers/KernelNames.h"
#include "tilefit/matchers/SourcePosition.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/DenseMap.h"

#include <cstdint>
#include <tuple>

using namespace clang;
using namespace clang::ast_matchers;

namespace tilefit {
namespace matchers {
namespace {

AST_MATCHER(Decl, isTemplatedDecl) { return Node.isTemplated(); }

/// Whether every use of the local \p VD in \p Body only reads it: then its initializer is its
/// value everywhere.
/// The node right around \p E in the chain of implicit conversions and copies that \p Init
/// wraps it in (`(int)(lvalue-to-rvalue)E`, `dim3(E)`); null if \p Init is not such a chain.
const Stmt *implicitParentOf(const Expr *E, const Expr *Init) {
  while (Init) {
    const Expr *Inner = nullptr;
    if (const auto *C = dyn_cast<ImplicitCastExpr>(Init))
      Inner = C->getSubExpr();
    else if (const auto *C = dyn_cast<CXXConstructExpr>(Init); C && C->getNumArgs() == 1)
      Inner = C->getArg(0);
    else if (const auto *M = dyn_cast<MaterializeTemporaryExpr>(Init))
      Inner = M->getSubExpr();
    if (Inner == E)
      return Init;
    Init = Inner;
  }
  return nullptr;
}

bool neverWritten(const VarDecl *VD, const Stmt *Body) {
  // Each use with the statement around it, found in the body alone (the unit's parent map
  // would be built for the whole unit).
  struct Uses : RecursiveASTVisitor<Uses> {
    const VarDecl *VD;
    std::vector<const Stmt *> Open;
    /// Each use: the reference, the statement around it and the one around that.
    std::vector<std::tuple<const DeclRefExpr *, const Stmt *, const Stmt *>> Refs;
    bool dataTraverseStmtPre(Stmt *S) {
      if (const auto *E = dyn_cast<DeclRefExpr>(S); E && E->getDecl() == VD)
        Refs.push_back({E, Open.empty() ? nullptr : Open.back(),
                        Open.size() < 2 ? nullptr : Open[Open.size() - 2]});
      Open.push_back(S);
      return true;
    }
    bool dataTraverseStmtPost(Stmt *) {
      Open.pop_back();
      return true;
    }
  } U;
  U.VD = VD;
  U.TraverseStmt(const_cast<Stmt *>(Body));
  for (auto [Ref, Parent, Above] : U.Refs) {
    if (!Parent)
      return false;
    // A field of it (`params.smem_bytes`): how the field is used.
    const Expr *E = Ref;
    if (const auto *M = dyn_cast<MemberExpr>(Parent);
        M && !M->isArrow() && isa<FieldDecl>(M->getMemberDecl())) {
      E = M;
      Parent = Above;
      if (!Parent)
        return false;
    }
    // In a braced initializer (`Params p = {grid, block, bytes}`) the traversal sees the list
    // as written, without the conversions: the semantic form's element says how it is used (a
    // copy of the value, or a reference bound to the variable).
    if (const auto *List = dyn_cast<InitListExpr>(Parent)) {
      const InitListExpr *Semantic = List->isSemanticForm() ? List : List->getSemanticForm();
      for (const Expr *Init : Semantic ? Semantic->inits() : List->inits())
        if (const Stmt *Around = implicitParentOf(E, Init))
          Parent = Around;
    }
    const auto *Cast = dyn_cast<ImplicitCastExpr>(Parent);
    const auto *Copy = dyn_cast<CXXConstructExpr>(Parent);
    bool Read = (Cast && (Cast->getCastKind() == CK_LValueToRValue ||
                          Cast->getCastKind() == CK_NoOp)) ||
                (Copy && Copy->getConstructor()->isCopyOrMoveConstructor() &&
                 Copy->getConstructor()->getParamDecl(0)->getType()->getPointeeType().isConstQualified());
    bool Unevaluated = isa<UnaryExprOrTypeTraitExpr>(Parent);
    if (!Read && !Unevaluated)
      return false;
  }
  return true;
}

/// Evaluates launch arguments: integers, and dim3 values as the product of their fields.
class Evaluator {
public:
  /// \p ReadOnly (null: none) keeps the answers of neverWritten between evaluations.
  Evaluator(ASTContext &Ctx, const FunctionDecl *Fn,
            llvm::DenseMap<const VarDecl *, bool> *ReadOnly = nullptr)
      : Ctx(Ctx), Fn(Fn), ReadOnly(ReadOnly) {}

  /// Whether \p VD is a local of the function, initialized and never written afterwards.
  bool initializedOnly(const VarDecl *VD) {
    if (!VD->isLocalVarDecl() || !VD->getInit() || !Fn || !Fn->getBody())
      return false;
    if (!ReadOnly)
      return neverWritten(VD, Fn->getBody());
    auto [It, New] = ReadOnly->try_emplace(VD, false);
    if (New)
      It->second = neverWritten(VD, Fn->getBody());
    return It->second;
  }

  std::optional<uint64_t> evaluate(const Expr *E, std::string &Why, int Depth = 0) {
    if (!E) {
      Why = "it is missing";
      return std::nullopt;
    }
    E = E->IgnoreImplicit();
    if (isa<CXXDefaultArgExpr>(E))
      E = cast<CXXDefaultArgExpr>(E)->getExpr()->IgnoreImplicit();
    if (E->isValueDependent() || E->isTypeDependent()) {
      Why = "it depends on a template parameter";
      return std::nullopt;
    }
    Expr::EvalResult R;
    if (E->EvaluateAsRValue(R, Ctx) && !R.HasSideEffects)
      return fromValue(R.Val, Why);
    // A copy of a variable (`dim3 block(64, 16); k<<<grid, block>>>`): the variable.
    if (const auto *Copy = dyn_cast<CXXConstructExpr>(E);
        Copy && Copy->getNumArgs() == 1 && Copy->getConstructor()->isCopyOrMoveConstructor())
      E = Copy->getArg(0)->IgnoreImplicit();
    // A field of a local aggregate initialized once with braces and only read
    // (`ClusterLaunchParams params = {grid, block, cluster, smem_size}; ... params.smem_size`).
    if (const auto *M = dyn_cast<MemberExpr>(E->IgnoreParenCasts()); M && !M->isArrow())
      if (const auto *F = dyn_cast<FieldDecl>(M->getMemberDecl()))
        if (const auto *Base = dyn_cast<DeclRefExpr>(M->getBase()->IgnoreParenImpCasts()))
          if (const auto *VD = dyn_cast<VarDecl>(Base->getDecl());
              VD && Depth < 8 && VD->isLocalVarDecl() && VD->getInit())
            if (const auto *List = dyn_cast<InitListExpr>(VD->getInit()->IgnoreImplicit()))
              if (const InitListExpr *Sem = List->isSemanticForm() ? List : List->getSemanticForm();
                  Sem && F->getFieldIndex() < Sem->getNumInits() && initializedOnly(VD)) {
                const Expr *Init = Sem->getInit(F->getFieldIndex());
                if (const auto *D = dyn_cast<CXXDefaultInitExpr>(Init))
                  Init = D->getExpr();
                if (isa<ImplicitValueInitExpr>(Init))
                  return 0;
                return evaluate(Init, Why, Depth + 1);
              }
    // A local variable initialized once and only read: its initializer.
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParenCasts()))
      if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl()))
        if (Depth < 8 && initializedOnly(VD))
          return evaluate(VD->getInit(), Why, Depth + 1);
    // Arithmetic over such values (`params.smem_bytes / 2`).
    if (isa<BinaryOperator, UnaryOperator>(E->IgnoreParenCasts()) && Depth < 8)
      if (auto V = condition(E->IgnoreParenCasts(), Depth + 1); V && *V >= 0)
        return static_cast<uint64_t>(*V);
    Why = describeRuntimeValue(E);
    return std::nullopt;
  }

  /// An integer condition or expression over constants and locals initialized once and only
  /// read (`smem_size >= (48 << 10)`): its value, or nothing when it depends on anything else.
  std::optional<int64_t> condition(const Expr *E, int Depth = 0) {
    if (!E || Depth > 32 || E->isValueDependent() || E->isTypeDependent())
      return std::nullopt;
    E = E->IgnoreParenImpCasts();
    Expr::EvalResult R;
    if (E->EvaluateAsRValue(R, Ctx) && !R.HasSideEffects && R.Val.isInt())
      return R.Val.getInt().getExtValue();
    if (const auto *B = dyn_cast<BinaryOperator>(E)) {
      auto L = condition(B->getLHS(), Depth + 1);
      if (B->getOpcode() == BO_LAnd && L && !*L)
        return 0;
      if (B->getOpcode() == BO_LOr && L && *L)
        return 1;
      auto Rv = condition(B->getRHS(), Depth + 1);
      if (!L || !Rv)
        return std::nullopt;
      const int64_t A = *L, C = *Rv;
      switch (B->getOpcode()) {
      case BO_LT: return A < C;
      case BO_GT: return A > C;
      case BO_LE: return A <= C;
      case BO_GE: return A >= C;
      case BO_EQ: return A == C;
      case BO_NE: return A != C;
      case BO_LAnd: return A && C;
      case BO_LOr: return A || C;
      case BO_Add: return A + C;
      case BO_Sub: return A - C;
      case BO_Mul: return A * C;
      case BO_Div: return C ? std::optional<int64_t>(A / C) : std::nullopt;
      case BO_Rem: return C ? std::optional<int64_t>(A % C) : std::nullopt;
      case BO_Shl: return C >= 0 && C < 63 ? std::optional<int64_t>(A << C) : std::nullopt;
      case BO_Shr: return C >= 0 && C < 63 ? std::optional<int64_t>(A >> C) : std::nullopt;
      case BO_And: return A & C;
      case BO_Or: return A | C;
      case BO_Xor: return A ^ C;
      default: return std::nullopt;
      }
    }
    if (const auto *U = dyn_cast<UnaryOperator>(E)) {
      auto V = condition(U->getSubExpr(), Depth + 1);
      if (!V)
        return std::nullopt;
      if (U->getOpcode() == UO_LNot)
        return !*V;
      if (U->getOpcode() == UO_Minus)
        return -*V;
      if (U->getOpcode() == UO_Plus)
        return *V;
      return std::nullopt;
    }
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
      if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl()))
        if (initializedOnly(VD))
          return condition(VD->getInit(), Depth + 1);
    // Any other value evaluate() reads (a field of a braced local, say).
    std::string Ignored;
    if (auto V = evaluate(E, Ignored, Depth + 1); V && *V <= uint64_t(INT64_MAX))
      return static_cast<int64_t>(*V);
    return std::nullopt;
  }

private:
  std::optional<uint64_t> fromValue(const APValue &V, std::string &Why) {
    if (V.isInt()) {
      if (V.getInt().isSigned() && V.getInt().isNegative()) {
        Why = "it is negative (" + std::to_string(V.getInt().getSExtValue()) + ")";
        return std::nullopt;
      }
      return V.getInt().getZExtValue();
    }
    if (V.isStruct()) {
      uint64_t Product = 1;
      for (unsigned I = 0; I < V.getStructNumFields(); ++I) {
        const APValue &F = V.getStructField(I);
        if (!F.isInt()) {
          Why = "it is not an integer or a dim3";
          return std::nullopt;
        }
        Product *= F.getInt().getZExtValue();
      }
      return Product;
    }
    Why = "it is not an integer";
    return std::nullopt;
  }

  /// "it depends on 'n', a function parameter" and the like.
  std::string describeRuntimeValue(const Expr *E) {
    struct First : RecursiveASTVisitor<First> {
      const ValueDecl *Found = nullptr;
      bool VisitDeclRefExpr(DeclRefExpr *R) {
        if (!Found && (isa<VarDecl>(R->getDecl()) || isa<FieldDecl>(R->getDecl())))
          Found = R->getDecl();
        return !Found;
      }
      bool VisitMemberExpr(MemberExpr *M) {
        if (!Found && isa<FieldDecl>(M->getMemberDecl()))
          Found = M->getMemberDecl();
        return !Found;
      }
    } F;
    F.TraverseStmt(const_cast<Expr *>(E));
    if (!F.Found)
      return "it depends on a value known only at run time";
    std::string Name = "'" + F.Found->getNameAsString() + "'";
    if (isa<ParmVarDecl>(F.Found))
      return "it depends on " + Name + ", a function parameter";
    if (isa<FieldDecl>(F.Found))
      return "it depends on " + Name + ", a field read at run time";
    if (const auto *VD = dyn_cast<VarDecl>(F.Found); VD && VD->isLocalVarDecl())
      return "it depends on " + Name + ", a variable that is assigned at run time";
    return "it depends on " + Name + ", which is not a compile-time constant";
  }

  ASTContext &Ctx;
  const FunctionDecl *Fn;
  llvm::DenseMap<const VarDecl *, bool> *ReadOnly;
};

/// The kernel a launch API's function argument (or the callee of `<<<>>>`) names: `k`,
/// `&k<32>`, `(const void *)k`, `reinterpret_cast<void *>(k)`, `*k`, or a variable initialized
/// with one of those (`auto kernel_fptr = gemm_device<...>;`) that \p Fn's body never writes
/// to afterwards.
const FunctionDecl *resolveKernel(const Expr *E, const FunctionDecl *Fn, int Depth = 0) {
  if (!E || Depth > 8)
    return nullptr;
  E = E->IgnoreParenImpCasts();
  if (const auto *Cast = dyn_cast<ExplicitCastExpr>(E))
    return resolveKernel(Cast->getSubExpr(), Fn, Depth + 1);
  if (const auto *U = dyn_cast<UnaryOperator>(E);
      U && (U->getOpcode() == UO_AddrOf || U->getOpcode() == UO_Deref))
    return resolveKernel(U->getSubExpr(), Fn, Depth + 1);
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    if (const auto *FD = dyn_cast<FunctionDecl>(DRE->getDecl()))
      return FD->hasAttr<CUDAGlobalAttr>() ? FD : nullptr;
    if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl()); VD && VD->getInit()) {
      const bool Local = VD->isLocalVarDecl() && !VD->isStaticLocal();
      const bool Constant = VD->getType().isConstQualified();
      if (Local && !Constant && !(Fn && Fn->getBody() && neverWritten(VD, Fn->getBody())))
        return nullptr;
      return resolveKernel(VD->getInit(), Fn, Depth + 1);
    }
  }
  return nullptr;
}

/// What a `cudaLaunchConfig_t` local variable holds at a launch: its initializer, then the
/// assignments to its fields that come before the launch in the function.
struct ConfigFields {
  const Expr *Block = nullptr;
  const Expr *Bytes = nullptr;
  bool BytesZero = false; ///< Zero-initialized and never assigned.
  bool Found = false;
};

ConfigFields readConfig(ASTContext &Ctx, const Expr *ConfigArg, const FunctionDecl *Fn,
                        SourceLocation Launch) {
  ConfigFields C;
  const Expr *E = ConfigArg->IgnoreParenImpCasts();
  if (const auto *U = dyn_cast<UnaryOperator>(E); U && U->getOpcode() == UO_AddrOf)
    E = U->getSubExpr()->IgnoreParenImpCasts();
  const auto *DRE = dyn_cast<DeclRefExpr>(E);
  const auto *VD = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  if (!VD || !VD->isLocalVarDecl() || !Fn || !Fn->getBody())
    return C;
  C.Found = true;
  auto FieldNamed = [](const FieldDecl *F, StringRef Name) { return F && F->getName() == Name; };
  // The initializer: `= {grid, block, bytes, ...}`, designated, or `= {}` / `{0}`.
  if (const Expr *Init = VD->getInit()) {
    if (const auto *List = dyn_cast<InitListExpr>(Init->IgnoreImplicit())) {
      const InitListExpr *Syntactic = List->isSemanticForm() ? List : List->getSemanticForm();
      const RecordDecl *RD = VD->getType()->getAsRecordDecl();
      if (Syntactic && RD) {
        unsigned I = 0;
        for (const FieldDecl *F : RD->fields()) {
          if (I >= Syntactic->getNumInits())
            break;
          const Expr *V = Syntactic->getInit(I++);
          bool Implicit = isa<ImplicitValueInitExpr>(V);
          if (FieldNamed(F, "blockDim") && !Implicit)
            C.Block = V;
          if (FieldNamed(F, "dynamicSmemBytes")) {
            if (Implicit)
              C.BytesZero = true;
            else
              C.Bytes = V;
          }
        }
        if (Syntactic->getNumInits() < 3 && !C.Bytes)
          C.BytesZero = true;
      }
    }
  }
  // Assignments before the launch, in source order: the last one wins.
  struct Assignments : RecursiveASTVisitor<Assignments> {
    const VarDecl *VD;
    const SourceManager *SM;
    SourceLocation Before;
    ConfigFields *C;
    void assigned(SourceLocation Where, const Expr *LHS, const Expr *RHS) {
      if (!SM->isBeforeInTranslationUnit(Where, Before))
        return;
      const auto *M = dyn_cast<MemberExpr>(LHS->IgnoreParenImpCasts());
      if (!M)
        return;
      const auto *Base = dyn_cast<DeclRefExpr>(M->getBase()->IgnoreParenImpCasts());
      const auto *F = dyn_cast<FieldDecl>(M->getMemberDecl());
      if (!Base || Base->getDecl() != VD || !F)
        return;
      if (F->getName() == "dynamicSmemBytes") {
        C->Bytes = RHS;
        C->BytesZero = false;
      } else if (F->getName() == "blockDim") {
        C->Block = RHS;
      }
    }
    bool VisitBinaryOperator(BinaryOperator *B) {
      if (B->getOpcode() == BO_Assign)
        assigned(B->getBeginLoc(), B->getLHS(), B->getRHS());
      return true;
    }
    // `cfg.blockDim = dim3(256)` calls dim3's assignment operator.
    bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *Op) {
      if (Op->getOperator() == OO_Equal && Op->getNumArgs() == 2)
        assigned(Op->getBeginLoc(), Op->getArg(0), Op->getArg(1));
      return true;
    }
  } A;
  A.VD = VD;
  A.SM = &Ctx.getSourceManager();
  A.Before = Launch;
  A.C = &C;
  A.TraverseStmt(Fn->getBody());
  return C;
}

void evaluateInto(Evaluator &Eval, const Expr *Bytes, bool BytesZero, const Expr *Block,
                  LaunchSite &L) {
  std::string Ignored;
  if (Block)
    L.BlockThreads = Eval.evaluate(Block, Ignored);
  if (!Bytes) {
    if (BytesZero)
      L.DynamicBytes = 0;
    else
      L.UnknownReason = "the dynamic shared memory size could not be found";
    return;
  }
  std::string Why;
  L.DynamicBytes = Eval.evaluate(Bytes, Why);
  if (!L.DynamicBytes)
    L.UnknownReason = "the dynamic shared memory size is not a compile-time constant: " + Why;
}

} // namespace

/// Which function each launch or call of the unit's own code is in: one walk over the
/// functions outside system headers (forCallable would build the parent map of the whole unit,
/// CUB's headers and all, at the first launch).
class LaunchCollector::FunctionIndex : public RecursiveASTVisitor<FunctionIndex> {
public:
  explicit FunctionIndex(ASTContext &Ctx) : SM(Ctx.getSourceManager()) {
    for (Decl *D : Ctx.getTraversalScope())
      TraverseDecl(D);
  }

  bool shouldVisitTemplateInstantiations() const { return true; }

  bool TraverseDecl(Decl *D) {
    if (!D)
      return true;
    // Namespaces and linkage specifications open anywhere; other declarations of system
    // headers hold no launch tilefit reports.
    if (!isa<TranslationUnitDecl, NamespaceDecl, LinkageSpecDecl>(D) &&
        SM.isInSystemHeader(SM.getExpansionLoc(D->getLocation())))
      return true;
    const auto *FD = dyn_cast<FunctionDecl>(D);
    if (FD && FD->doesThisDeclarationHaveABody())
      Open.push_back(FD);
    bool Ok = RecursiveASTVisitor::TraverseDecl(D);
    if (FD && FD->doesThisDeclarationHaveABody())
      Open.pop_back();
    return Ok;
  }

  bool TraverseLambdaExpr(LambdaExpr *E) {
    Open.push_back(E->getCallOperator());
    bool Ok = RecursiveASTVisitor::TraverseLambdaExpr(E);
    Open.pop_back();
    return Ok;
  }

  bool VisitCallExpr(CallExpr *E) {
    if (!Open.empty())
      Of[E] = Open.back();
    return true;
  }

  const FunctionDecl *of(const Stmt *S) const { return Of.lookup(S); }

private:
  const SourceManager &SM;
  std::vector<const FunctionDecl *> Open;
  llvm::DenseMap<const Stmt *, const FunctionDecl *> Of;
};

LaunchCollector::LaunchCollector() = default;
LaunchCollector::~LaunchCollector() = default;

const FunctionDecl *LaunchCollector::enclosingFunction(ASTContext &Ctx, const Stmt *Call) {
  if (!Index)
    Index = std::make_unique<FunctionIndex>(Ctx);
  return Index->of(Call);
}

void LaunchCollector::registerMatchers(MatchFinder &Finder) {
  // Launches and calls in the project's own code (not in system headers such as CUB's
  // dispatch layers); run() keeps those in functions that are not template patterns:
  // instantiations are visited with their concrete arguments.
  auto InUserCode = unless(isExpansionInSystemHeader());
  Finder.addMatcher(cudaKernelCallExpr(InUserCode).bind("chevron"), this);
  Finder.addMatcher(
      callExpr(callee(functionDecl(hasAnyName("::cudaLaunchKernel", "::cudaLaunchCooperativeKernel",
                                              "::cudaLaunchKernelEx", "::cudaLaunchKernelExC"))),
               InUserCode)
          .bind("api"),
      this);
  Finder.addMatcher(callExpr(callee(functionDecl(hasName("::cudaFuncSetAttribute"))), InUserCode)
                        .bind("attribute"),
                    this);
}

/// Whether \p Target sits in a branch of \p Fn that never runs: under an `if` whose condition
/// is a constant there (`if (smem_size >= (48 << 10))` with smem_size a constant of the
/// instantiation), on the side the condition does not take.
static bool inDeadBranch(const Stmt *Target, const FunctionDecl *Fn, Evaluator &Eval) {
  struct Path : RecursiveASTVisitor<Path> {
    const Stmt *Target;
    std::vector<std::pair<const IfStmt *, bool>> Open, Found;
    bool Done = false;
    bool TraverseIfStmt(IfStmt *If) {
      if (Done)
        return false;
      if (If->getInit() && !TraverseStmt(If->getInit()))
        return false;
      if (!TraverseStmt(If->getCond()))
        return false;
      for (bool Then : {true, false}) {
        Stmt *Branch = Then ? If->getThen() : If->getElse();
        if (!Branch)
          continue;
        Open.push_back({If, Then});
        bool Ok = TraverseStmt(Branch);
        Open.pop_back();
        if (!Ok)
          return false;
      }
      return true;
    }
    bool VisitStmt(Stmt *S) {
      if (S == Target) {
        Found = Open;
        Done = true;
        return false;
      }
      return true;
    }
  } P;
  P.Target = Target;
  if (!Fn->getBody())
    return false;
  P.TraverseStmt(Fn->getBody());
  for (const auto &[If, Then] : P.Found) {
    if (If->isConsteval())
      continue;
    if (auto C = Eval.condition(If->getCond()); C && (*C != 0) != Then)
      return true;
  }
  return false;
}

void LaunchCollector::unresolved(ASTContext &Ctx, const SourcePos &Loc, const Expr *Kernel,
                                 const Expr *Bytes) {
  // A size of zero (or none) loses nothing; cudaLaunchKernelEx's is in its configuration.
  if (Bytes && !isa<CXXDefaultArgExpr>(Bytes)) {
    Expr::EvalResult R;
    if (!Bytes->isValueDependent() && Bytes->EvaluateAsRValue(R, Ctx) && R.Val.isInt() &&
        R.Val.getInt().isZero())
      return;
  }
  const SourceManager &SM = Ctx.getSourceManager();
  CharSourceRange Range = CharSourceRange::getTokenRange(Kernel->IgnoreImplicit()->getSourceRange());
  std::string Text = Lexer::getSourceText(Range, SM, Ctx.getLangOpts()).str();
  LostLaunch L{Loc, Text.empty() ? std::string("?") : Text, /*Unresolved=*/true, ""};
  // A helper's own parameter: the kernel is its caller's.
  const Expr *Inner = Kernel->IgnoreParenImpCasts();
  while (const auto *Cast = dyn_cast<ExplicitCastExpr>(Inner))
    Inner = Cast->getSubExpr()->IgnoreParenImpCasts();
  if (const auto *Ref = dyn_cast<DeclRefExpr>(Inner))
    if (const auto *P = dyn_cast<ParmVarDecl>(Ref->getDecl()))
      if (const auto *F = dyn_cast_or_null<FunctionDecl>(P->getDeclContext()))
        L.Helper = F->getQualifiedNameAsString();
  Unresolved.push_back(std::move(L));
}

void LaunchCollector::run(const MatchFinder::MatchResult &Result) {
  ASTContext &Ctx = *Result.Context;
  const SourceManager &SM = Ctx.getSourceManager();
  const Stmt *Matched = nullptr;
  for (const char *Id : {"chevron", "api", "attribute"})
    if (!Matched)
      Matched = Result.Nodes.getNodeAs<Stmt>(Id);
  const FunctionDecl *Fn = Matched ? enclosingFunction(Ctx, Matched) : nullptr;
  if (!Fn || Fn->isTemplated())
    return;
  Evaluator Eval(Ctx, Fn, &ReadOnly);
  // Code under a condition that is false here does not run: no launch, no opt-in.
  if (inDeadBranch(Matched, Fn, Eval))
    return;

  if (const auto *Call = Result.Nodes.getNodeAs<CUDAKernelCallExpr>("chevron")) {
    LaunchSite L;
    L.Form = "<<<>>>";
    L.Loc = toSourcePos(SM, Call->getBeginLoc());
    const CallExpr *Config = Call->getConfig();
    const FunctionDecl *Kernel = Call->getDirectCallee();
    // Through a function pointer: `auto kernel_fptr = gemm_device<...>; kernel_fptr<<<...>>>`.
    if (!Kernel)
      Kernel = resolveKernel(Call->getCallee(), Fn);
    if (!Kernel || !Config || Config->getNumArgs() < 2) {
      if (Config && Config->getNumArgs() >= 3 && !isa<CXXDefaultArgExpr>(Config->getArg(2)) &&
          !Call->containsErrors())
        unresolved(Ctx, L.Loc, Call->getCallee(), Config->getArg(2));
      // A kernel template's launch with an error in it: which specialization it launches is
      // not decided, and none is instantiated for it.
      if (const auto *Named = dyn_cast<OverloadExpr>(Call->getCallee()->IgnoreImplicit());
          Named && Call->containsErrors() &&
          llvm::any_of(Named->decls(), [](const NamedDecl *D) {
            const auto *T = dyn_cast<FunctionTemplateDecl>(D->getUnderlyingDecl());
            return T && T->getTemplatedDecl()->hasAttr<CUDAGlobalAttr>();
          })) {
        CharSourceRange R = CharSourceRange::getTokenRange(Named->getSourceRange());
        Lost.push_back({L.Loc, Lexer::getSourceText(R, SM, Ctx.getLangOpts()).str()});
      }
      return;
    }
    const Expr *Bytes = Config->getNumArgs() >= 3 ? Config->getArg(2) : nullptr;
    bool Default = !Bytes || isa<CXXDefaultArgExpr>(Bytes);
    evaluateInto(Eval, Default ? nullptr : Bytes, Default, Config->getArg(1), L);
    Launches.push_back({Kernel->getDefinition() ? Kernel->getDefinition() : Kernel, L});
    return;
  }

  if (const auto *Call = Result.Nodes.getNodeAs<CallExpr>("api")) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    LaunchSite L;
    L.Form = Callee->getName().str();
    L.Loc = toSourcePos(SM, Call->getBeginLoc());
    const bool Ex = L.Form == "cudaLaunchKernelEx" || L.Form == "cudaLaunchKernelExC";
    const FunctionDecl *Kernel =
        Call->getNumArgs() > (Ex ? 1u : 0u) ? resolveKernel(Call->getArg(Ex ? 1 : 0), Fn) : nullptr;
    if (!Kernel) {
      if (Call->getNumArgs() > (Ex ? 1u : 0u) && !Call->containsErrors())
        unresolved(Ctx, L.Loc, Call->getArg(Ex ? 1 : 0),
                   Ex ? nullptr : (Call->getNumArgs() > 4 ? Call->getArg(4) : nullptr));
      return;
    }
    if (Ex) {
      ConfigFields C = readConfig(Ctx, Call->getArg(0), Fn, Call->getBeginLoc());
      if (!C.Found)
        L.UnknownReason = "the launch configuration is not a local cudaLaunchConfig_t of this "
                          "function";
      else
        evaluateInto(Eval, C.Bytes, C.BytesZero, C.Block, L);
    } else {
      // cudaLaunchKernel(func, grid, block, args, sharedMem = 0, stream = 0), and the same for
      // cudaLaunchCooperativeKernel.
      const Expr *Bytes = Call->getNumArgs() > 4 ? Call->getArg(4) : nullptr;
      bool Default = !Bytes || isa<CXXDefaultArgExpr>(Bytes);
      evaluateInto(Eval, Default ? nullptr : Bytes, Default,
                   Call->getNumArgs() > 2 ? Call->getArg(2) : nullptr, L);
    }
    Launches.push_back({Kernel->getDefinition() ? Kernel->getDefinition() : Kernel, L});
    return;
  }

  if (const auto *Call = Result.Nodes.getNodeAs<CallExpr>("attribute")) {
    if (Call->getNumArgs() < 3)
      return;
    AttributeCall A;
    A.Loc = toSourcePos(SM, Call->getBeginLoc());
    Expr::EvalResult Which;
    if (!Call->getArg(1)->EvaluateAsRValue(Which, Ctx) || !Which.Val.isInt())
      return; // an attribute chosen at run time: not one tilefit reads
    // cudaFuncAttributeMaxDynamicSharedMemorySize = 8, ...PreferredSharedMemoryCarveout = 9
    // (driver_types.h).
    int64_t Attr = Which.Val.getInt().getSExtValue();
    if (Attr == 8)
      A.Attribute = AttributeCall::Kind::MaxDynamicSharedMemorySize;
    else if (Attr == 9)
      A.Attribute = AttributeCall::Kind::PreferredSharedMemoryCarveout;
    else
      return;
    const FunctionDecl *Kernel = resolveKernel(Call->getArg(0), Fn);
    if (!Kernel)
      return; // An opt-in for a kernel not known statically: no launch of it is either.

    std::string Why;
    if (auto V = Eval.evaluate(Call->getArg(2), Why))
      A.Value = static_cast<int64_t>(*V);
    else
      A.UnknownReason = "the value is not a compile-time constant: " + Why;
    Attributes.push_back({Kernel->getDefinition() ? Kernel->getDefinition() : Kernel, A});
  }
}

std::vector<HostKernelCalls> hostKernelCalls(ASTContext &Ctx, const LaunchCollector &Collector) {
  KernelNamer Namer(Ctx);
  std::vector<HostKernelCalls> Out;
  llvm::DenseMap<const FunctionDecl *, size_t> Index;
  auto Entry = [&](const FunctionDecl *K) -> HostKernelCalls & {
    auto [It, New] = Index.try_emplace(K, Out.size());
    if (New) {
      Out.emplace_back();
      Out.back().Mangled = Namer.mangled(K);
    }
    return Out[It->second];
  };
  for (const auto &[K, L] : Collector.Launches)
    Entry(K).Launches.push_back(L);
  for (const auto &[K, A] : Collector.Attributes)
    Entry(K).Attributes.push_back(A);
  return Out;
}

std::optional<uint64_t> evaluateConstant(ASTContext &Ctx, const FunctionDecl *Fn, const Expr *E,
                                         std::string &Why) {
  return Evaluator(Ctx, Fn).evaluate(E, Why);
}

std::optional<LaunchBounds> launchBoundsOf(const FunctionDecl *Kernel) {
  const auto *A = Kernel->getAttr<CUDALaunchBoundsAttr>();
  if (!A)
    return std::nullopt;
  const ASTContext &Ctx = Kernel->getASTContext();
  LaunchBounds B;
  B.Loc = toSourcePos(Ctx.getSourceManager(), A->getLocation());
  auto Eval = [&](const Expr *E) -> std::optional<uint64_t> {
    Expr::EvalResult R;
    if (E && !E->isValueDependent() && E->EvaluateAsInt(R, Ctx) && !R.Val.getInt().isNegative())
      return R.Val.getInt().getZExtValue();
    return std::nullopt;
  };
  B.MaxThreads = Eval(A->getMaxThreads());
  B.MinBlocks = Eval(A->getMinBlocks());
  return B;
}

} // namespace matchers
} // namespace tilefit
