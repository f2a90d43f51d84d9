//===- SharedAccesses.cpp - Loads and stores of __shared__ variables ------===//
#include "SharedAccesses.h"
#include "ReadOnlyLocals.h"
#include "tilefit/matchers/SourcePosition.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecordLayout.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

#include <algorithm>
#include <set>

namespace tilefit {
namespace matchers {
namespace {

using namespace clang;
using Op = IndexExpr::Op;

/// The longest text an access is shown with.
constexpr size_t MaxText = 80;

/// `threadIdx.x` and the like: the builtin variable's name and the field
/// (0, 1, 2); "" where \p E is none.
std::pair<std::string, int> builtinField(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  if (const auto *P = dyn_cast<PseudoObjectExpr>(E))
    E = P->getSyntacticForm()->IgnoreParenImpCasts();
  const auto *M = dyn_cast<MSPropertyRefExpr>(E);
  if (!M)
    return {"", -1};
  const Expr *Object = M->getBaseExpr()->IgnoreParenImpCasts();
  if (const auto *O = dyn_cast<OpaqueValueExpr>(Object);
      O && O->getSourceExpr())
    Object = O->getSourceExpr()->IgnoreParenImpCasts();
  const auto *Base = dyn_cast<DeclRefExpr>(Object);
  if (!Base)
    return {"", -1};
  const std::string Field = M->getPropertyDecl()->getName().str();
  const int Index = Field == "x" ? 0 : Field == "y" ? 1 : Field == "z" ? 2 : -1;
  return {Base->getDecl()->getName().str(), Index};
}

/// The opcode of \p B in an index expression, if it has one.
std::optional<Op> opOf(BinaryOperatorKind K) {
  switch (K) {
  case BO_Add:
  case BO_AddAssign:
    return Op::Add;
  case BO_Sub:
  case BO_SubAssign:
    return Op::Sub;
  case BO_Mul:
  case BO_MulAssign:
    return Op::Mul;
  case BO_Div:
  case BO_DivAssign:
    return Op::Div;
  case BO_Rem:
  case BO_RemAssign:
    return Op::Rem;
  case BO_Shl:
  case BO_ShlAssign:
    return Op::Shl;
  case BO_Shr:
  case BO_ShrAssign:
    return Op::Shr;
  case BO_And:
  case BO_AndAssign:
    return Op::And;
  case BO_Or:
  case BO_OrAssign:
    return Op::Or;
  case BO_Xor:
  case BO_XorAssign:
    return Op::Xor;
  case BO_LT:
    return Op::Lt;
  case BO_LE:
    return Op::Le;
  case BO_GT:
    return Op::Gt;
  case BO_GE:
    return Op::Ge;
  case BO_EQ:
    return Op::Eq;
  case BO_NE:
    return Op::Ne;
  case BO_LAnd:
    return Op::LAnd;
  case BO_LOr:
    return Op::LOr;
  default:
    return std::nullopt;
  }
}

int addNode(IndexExpr &E, Op O, int64_t Value = 0, int A = -1, int B = -1,
            int C = -1) {
  E.Nodes.push_back({O, Value, A, B, C});
  return int(E.Nodes.size()) - 1;
}

/// Where an lvalue or pointer lands in a `__shared__` variable.
struct Place {
  const VarDecl *Var = nullptr;
  std::vector<const Expr *> Subscripts;
  /// Byte offsets beyond the subscripts: each expression times its scale.
  std::vector<std::pair<const Expr *, int64_t>> Scaled;
  int64_t Constant = 0;
  Reason Why; ///< Set: the address cannot be followed.
};

class AccessCollector : public RecursiveASTVisitor<AccessCollector> {
  using Base = RecursiveASTVisitor<AccessCollector>;

public:
  AccessCollector(ASTContext &Ctx, const FunctionDecl *FD,
                  const llvm::DenseMap<const VarDecl *, size_t> &VarIndex,
                  FunctionFacts &F)
      : Ctx(Ctx), Body(FD->getBody()), VarIndex(VarIndex), F(F) {}

  void run() {
    if (Body)
      TraverseStmt(const_cast<Stmt *>(Body));
  }

  // A lambda's body is a function of its own.
  bool TraverseLambdaExpr(LambdaExpr *) { return true; }
  // Local classes and functions are functions of their own.
  bool TraverseDecl(Decl *D) {
    if (D && (isa<TagDecl>(D) || isa<FunctionDecl>(D)))
      return true;
    return Base::TraverseDecl(D);
  }

  bool TraverseIfStmt(IfStmt *S) {
    if (S->getInit())
      TraverseStmt(S->getInit());
    if (S->getConditionVariableDeclStmt())
      TraverseStmt(S->getConditionVariableDeclStmt());
    TraverseStmt(S->getCond());
    Guard G = guardOf(S->getCond());
    Guards.push_back(G);
    TraverseStmt(S->getThen());
    Guards.pop_back();
    if (S->getElse()) {
      Guards.push_back(negated(G));
      TraverseStmt(S->getElse());
      Guards.pop_back();
    }
    return true;
  }

  bool TraverseCompoundStmt(CompoundStmt *S) {
    const size_t Open = Guards.size();
    for (Stmt *Child : S->body()) {
      TraverseStmt(Child);
      // `if (c) return;` (or continue, break): the statements after it run
      // only where c does not hold.
      if (const auto *If = dyn_cast<IfStmt>(Child);
          If && !If->getElse() && !If->getInit() && exits(If->getThen()))
        Guards.push_back(negated(guardOf(If->getCond())));
    }
    Guards.resize(Open);
    return true;
  }

  bool TraverseForStmt(ForStmt *S) {
    if (S->getInit())
      TraverseStmt(S->getInit());
    Loop L = counterOf(S);
    Loops.push_back(L);
    ++LoopDepth;
    if (S->getCond())
      TraverseStmt(S->getCond());
    if (S->getInc())
      TraverseStmt(S->getInc());
    TraverseStmt(S->getBody());
    --LoopDepth;
    Loops.pop_back();
    return true;
  }
  bool TraverseWhileStmt(WhileStmt *S) {
    return inLoop([&] { Base::TraverseWhileStmt(S); });
  }
  bool TraverseDoStmt(DoStmt *S) {
    return inLoop([&] { Base::TraverseDoStmt(S); });
  }
  bool TraverseCXXForRangeStmt(CXXForRangeStmt *S) {
    return inLoop([&] { Base::TraverseCXXForRangeStmt(S); });
  }

  bool VisitImplicitCastExpr(ImplicitCastExpr *C) {
    if (C->getCastKind() == CK_LValueToRValue)
      record(C->getSubExpr(), false);
    return true;
  }
  bool VisitBinaryOperator(BinaryOperator *B) {
    if (B->isCompoundAssignmentOp())
      record(B->getLHS(), false);
    if (B->isAssignmentOp())
      record(B->getLHS(), true);
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *U) {
    if (U->isIncrementDecrementOp()) {
      record(U->getSubExpr(), false);
      record(U->getSubExpr(), true);
    }
    return true;
  }
  bool VisitCXXConstructExpr(CXXConstructExpr *C) {
    const CXXConstructorDecl *Ctor = C->getConstructor();
    if (Ctor && Ctor->isCopyOrMoveConstructor() && Ctor->isTrivial() &&
        C->getNumArgs() == 1)
      record(C->getArg(0), false);
    return true;
  }
  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *C) {
    const auto *M = dyn_cast_or_null<CXXMethodDecl>(C->getDirectCallee());
    if (C->getOperator() == OO_Equal && M && M->isTrivial() &&
        C->getNumArgs() == 2) {
      record(C->getArg(0), true);
      if (C->getArg(1)->isGLValue())
        record(C->getArg(1), false);
    }
    return true;
  }

private:
  struct Guard {
    IndexExpr E;
    std::string Assumed;
    Reason LaneDependent;
  };
  struct Loop {
    const VarDecl *Counter = nullptr;
    int Index = -1; ///< Into F.Loops; -1: not a counter tilefit enumerates.
    Reason Why;     ///< Why not, where more precise than AccessCounterChanges.
  };

  template <typename Fn> bool inLoop(Fn Traverse) {
    Loops.push_back({});
    ++LoopDepth;
    Traverse();
    --LoopDepth;
    Loops.pop_back();
    return true;
  }

  static bool exits(const Stmt *S) {
    if (const auto *C = dyn_cast_or_null<CompoundStmt>(S))
      S = C->size() == 1 ? C->body_front() : nullptr;
    return S &&
           (isa<ReturnStmt>(S) || isa<ContinueStmt>(S) || isa<BreakStmt>(S));
  }

  std::string textOf(const Expr *E) const {
    const SourceManager &SM = Ctx.getSourceManager();
    CharSourceRange Range = CharSourceRange::getTokenRange(E->getSourceRange());
    if (Range.getBegin().isMacroID() || Range.getEnd().isMacroID())
      Range = SM.getExpansionRange(Range);
    std::string Text = Lexer::getSourceText(Range, SM, Ctx.getLangOpts()).str();
    std::string Flat;
    for (char C : Text)
      if (!(C == ' ' && !Flat.empty() && Flat.back() == ' '))
        Flat += (C == '\n' || C == '\t') ? ' ' : C;
    if (Flat.size() > MaxText)
      Flat = Flat.substr(0, MaxText - 3) + "...";
    return Flat;
  }

  bool readOnly(const VarDecl *VD) {
    auto [It, New] = ReadOnly.try_emplace(VD, false);
    if (New)
      It->second = neverWritten(VD, Body);
    return It->second;
  }

  /// \p E as a node of \p Out, or -1 with \p Why set.
  int convert(const Expr *E, IndexExpr &Out, Reason &Why, int Depth = 0) {
    if (!E || Depth > 48) {
      Why = {ReasonKind::AccessNotEvaluable, {"it is too deep"}};
      return -1;
    }
    E = E->IgnoreParens();
    if (!E->isValueDependent() && !E->isTypeDependent() &&
        E->getType()->isIntegralOrEnumerationType()) {
      Expr::EvalResult R;
      if (E->EvaluateAsInt(R, Ctx) && !R.HasSideEffects)
        return addNode(Out, Op::Const, R.Val.getInt().getExtValue());
    }
    if (const auto *C = dyn_cast<CastExpr>(E)) {
      const QualType To = C->getType();
      const QualType From = C->getSubExpr()->getType();
      const bool Integers = (To->isIntegralOrEnumerationType()) &&
                            (From->isIntegralOrEnumerationType());
      if (C->getCastKind() == CK_IntegralToBoolean) {
        int A = convert(C->getSubExpr(), Out, Why, Depth + 1);
        if (A < 0)
          return -1;
        return addNode(Out, Op::Ne, 0, A, addNode(Out, Op::Const, 0));
      }
      if (Integers || C->getCastKind() == CK_LValueToRValue ||
          C->getCastKind() == CK_NoOp)
        return convert(C->getSubExpr(), Out, Why, Depth + 1);
    }
    if (auto [Name, Field] = builtinField(E); !Name.empty()) {
      if (Field >= 0 && Name == "threadIdx")
        return addNode(Out, Op::ThreadIdx, Field);
      if (Field >= 0 && Name == "blockDim")
        return addNode(Out, Op::BlockDim, Field);
      Why = {ReasonKind::AccessValueAtRunTime, {textOf(E)}};
      return -1;
    }
    if (const auto *R = dyn_cast<DeclRefExpr>(E)) {
      const auto *VD = dyn_cast<VarDecl>(R->getDecl());
      if (VD) {
        for (auto It = Loops.rbegin(); It != Loops.rend(); ++It)
          if (It->Counter == VD) {
            if (It->Index >= 0)
              return addNode(Out, Op::Counter, It->Index);
            Why = It->Why.empty() ? Reason(ReasonKind::AccessCounterChanges,
                                           {VD->getName().str()})
                                  : It->Why;
            return -1;
          }
        if (VD->isLocalVarDecl() && !isa<ParmVarDecl>(VD) && VD->getInit() &&
            !VD->getType()->isReferenceType() &&
            VD->getType()->isIntegralOrEnumerationType() && readOnly(VD))
          return convert(VD->getInit(), Out, Why, Depth + 1);
        Why = {ReasonKind::AccessValueAtRunTime, {VD->getName().str()}};
        return -1;
      }
    }
    if (const auto *B = dyn_cast<BinaryOperator>(E)) {
      std::optional<Op> O = opOf(B->getOpcode());
      if (O && !B->isAssignmentOp() &&
          !B->getLHS()->getType()->isPointerType() &&
          !B->getRHS()->getType()->isPointerType()) {
        int A = convert(B->getLHS(), Out, Why, Depth + 1);
        if (A < 0)
          return -1;
        int C = convert(B->getRHS(), Out, Why, Depth + 1);
        if (C < 0)
          return -1;
        return addNode(Out, *O, 0, A, C);
      }
    }
    if (const auto *U = dyn_cast<UnaryOperator>(E)) {
      const UnaryOperatorKind K = U->getOpcode();
      if (K == UO_Plus || K == UO_Minus || K == UO_Not || K == UO_LNot) {
        int A = convert(U->getSubExpr(), Out, Why, Depth + 1);
        if (A < 0 || K == UO_Plus)
          return A;
        return addNode(Out,
                       K == UO_Minus ? Op::Neg
                       : K == UO_Not ? Op::Not
                                     : Op::LNot,
                       0, A);
      }
    }
    if (const auto *C = dyn_cast<ConditionalOperator>(E)) {
      int A = convert(C->getCond(), Out, Why, Depth + 1);
      int B = A < 0 ? -1 : convert(C->getTrueExpr(), Out, Why, Depth + 1);
      int D = B < 0 ? -1 : convert(C->getFalseExpr(), Out, Why, Depth + 1);
      return D < 0 ? -1 : addNode(Out, Op::Select, 0, A, B, D);
    }
    // min(a, b), max(a, b): CUDA's integer overloads.
    if (const auto *Call = dyn_cast<CallExpr>(E))
      if (const FunctionDecl *Callee = Call->getDirectCallee();
          Callee && Call->getNumArgs() == 2 && Callee->getIdentifier() &&
          (Callee->getName() == "min" || Callee->getName() == "max" ||
           Callee->getName() == "umin" || Callee->getName() == "umax") &&
          Call->getType()->isIntegerType()) {
        int A = convert(Call->getArg(0), Out, Why, Depth + 1);
        int B = A < 0 ? -1 : convert(Call->getArg(1), Out, Why, Depth + 1);
        if (B < 0)
          return -1;
        const bool Min = Callee->getName().ends_with("min");
        int Less = addNode(Out, Op::Lt, 0, A, B);
        return addNode(Out, Op::Select, 0, Less, Min ? A : B, Min ? B : A);
      }
    Why = {ReasonKind::AccessNotInteger, {textOf(E)}};
    return -1;
  }

  /// \p E alone as an expression; empty with \p Why set where it is not one.
  IndexExpr expression(const Expr *E, Reason &Why) {
    IndexExpr Out;
    if (convert(E, Out, Why) < 0)
      Out.Nodes.clear();
    return Out;
  }

  /// Whether \p E may differ between the threads of a block: it names
  /// threadIdx, a local tilefit cannot follow, or calls a function.
  bool laneDependent(const Expr *E, int Depth = 0) {
    if (!E || Depth > 16)
      return true;
    struct Finder : RecursiveASTVisitor<Finder> {
      AccessCollector *Self;
      int Depth;
      bool Found = false;
      bool VisitMSPropertyRefExpr(MSPropertyRefExpr *M) {
        Found |= builtinField(M).first == "threadIdx";
        return !Found;
      }
      bool VisitCallExpr(CallExpr *C) {
        // blockIdx.x's getter (__fetch_builtin_x) is the same for the block.
        const FunctionDecl *Callee = C->getDirectCallee();
        const bool Builtin = Callee && Callee->getIdentifier() &&
                             Callee->getName().starts_with("__fetch_builtin_");
        Found |= !Builtin && !C->isCXX11ConstantExpr(Self->Ctx);
        return !Found;
      }
      bool VisitDeclRefExpr(DeclRefExpr *R) {
        if (const auto *VD = dyn_cast<VarDecl>(R->getDecl());
            VD && VD->isLocalVarDecl() && !isa<ParmVarDecl>(VD))
          Found |= !VD->getInit() || !Self->readOnly(VD) ||
                   Self->laneDependent(VD->getInit(), Depth + 1);
        return !Found;
      }
    } F;
    F.Self = this;
    F.Depth = Depth;
    F.TraverseStmt(const_cast<Expr *>(E));
    return F.Found;
  }

  Guard guardOf(const Expr *Cond) {
    Guard G;
    Reason Why;
    G.E = expression(Cond, Why);
    if (!G.E.empty())
      return G;
    if (laneDependent(Cond))
      G.LaneDependent = {ReasonKind::AccessDependsOnLane, {textOf(Cond)}};
    else
      G.Assumed = textOf(Cond);
    return G;
  }

  static Guard negated(Guard G) {
    if (!G.E.empty())
      addNode(G.E, Op::LNot, 0, int(G.E.Nodes.size()) - 1);
    if (!G.Assumed.empty())
      G.Assumed = "!(" + G.Assumed + ")";
    return G;
  }

  /// The counter of `for (int i = a; cond; step)` where tilefit can
  /// enumerate it: a local integer the body only reads.
  Loop counterOf(ForStmt *S) {
    Loop L;
    const auto *Init = dyn_cast_or_null<DeclStmt>(S->getInit());
    if (!Init || !Init->isSingleDecl())
      return L;
    const auto *VD = dyn_cast<VarDecl>(Init->getSingleDecl());
    if (!VD || !VD->getInit() || !VD->getType()->isIntegerType())
      return L;
    L.Counter = VD;
    if (!S->getCond() || !S->getInc() ||
        (S->getBody() && !neverWritten(VD, S->getBody())))
      return L;
    AccessLoop A;
    A.Loc = toSourcePos(Ctx.getSourceManager(), S->getForLoc());
    A.Counter = VD->getName().str();
    Reason Why;
    A.Init = expression(VD->getInit(), Why);
    if (A.Init.empty())
      return L;
    // The condition and the step see the counter itself.
    L.Index = int(F.Loops.size());
    Loops.push_back(L);
    A.Condition = expression(S->getCond(), Why);
    A.Next = step(S->getInc(), VD);
    Loops.pop_back();
    if (A.Condition.empty() || A.Next.empty()) {
      L.Index = -1;
      return L;
    }
    // `for (int i = threadIdx.x; i < n; i += blockDim.x)`: each thread counts
    // its own values, which one counter for the block cannot stand for.
    for (const IndexExpr *E : {&A.Init, &A.Condition, &A.Next})
      for (const IndexExpr::Node &N : E->Nodes)
        if (N.O == Op::ThreadIdx) {
          L.Index = -1;
          L.Why = {ReasonKind::AccessNotEvaluable,
                   {"each thread counts its own values of the loop counter '" +
                    A.Counter + "'"}};
          return L;
        }
    F.Loops.push_back(std::move(A));
    return L;
  }

  /// `i++`, `i += s`, `i >>= 1`, `i = i * 2 + 1`: the counter's next value.
  IndexExpr step(const Expr *Inc, const VarDecl *VD) {
    Inc = Inc->IgnoreParenImpCasts();
    auto IsCounter = [&](const Expr *E) {
      const auto *R = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
      return R && R->getDecl() == VD;
    };
    IndexExpr Out;
    Reason Why;
    if (const auto *U = dyn_cast<UnaryOperator>(Inc);
        U && U->isIncrementDecrementOp() && IsCounter(U->getSubExpr())) {
      int C = addNode(Out, Op::Counter, F.Loops.size());
      addNode(Out, U->isIncrementOp() ? Op::Add : Op::Sub, 0, C,
              addNode(Out, Op::Const, 1));
      return Out;
    }
    if (const auto *B = dyn_cast<BinaryOperator>(Inc);
        B && IsCounter(B->getLHS())) {
      if (B->getOpcode() == BO_Assign) {
        if (convert(B->getRHS(), Out, Why) < 0)
          Out.Nodes.clear();
        return Out;
      }
      if (std::optional<Op> O = opOf(B->getOpcode());
          O && B->isCompoundAssignmentOp()) {
        int C = addNode(Out, Op::Counter, F.Loops.size());
        int R = convert(B->getRHS(), Out, Why);
        if (R < 0)
          return {};
        addNode(Out, *O, 0, C, R);
        return Out;
      }
    }
    return {};
  }

  // Where an lvalue or a pointer lands.
  bool placeOfLValue(const Expr *E, Place &P, int Depth = 0) {
    if (Depth > 32)
      return false;
    E = E->IgnoreParens();
    if (const auto *C = dyn_cast<CastExpr>(E))
      if (C->getCastKind() == CK_NoOp || C->getCastKind() == CK_LValueBitCast)
        return placeOfLValue(C->getSubExpr(), P, Depth + 1);
    if (const auto *R = dyn_cast<DeclRefExpr>(E)) {
      const auto *VD = dyn_cast<VarDecl>(R->getDecl());
      if (!VD)
        return false;
      if (VarIndex.count(VD)) {
        P.Var = VD;
        return true;
      }
      // A reference to part of one: `float (&row)[33] = tile[ty];`.
      if (VD->getType()->isReferenceType() && VD->isLocalVarDecl() &&
          VD->getInit()) {
        if (!placeOfLValue(VD->getInit(), P, Depth + 1))
          return false;
        if (!readOnly(VD) && P.Why.empty())
          P.Why = {ReasonKind::AccessThroughPointer, {VD->getName().str()}};
        return true;
      }
      return false;
    }
    if (const auto *A = dyn_cast<ArraySubscriptExpr>(E)) {
      const Expr *BaseExpr = A->getBase()->IgnoreParens();
      const Expr *Index = A->getIdx();
      if (const auto *Decay = dyn_cast<ImplicitCastExpr>(BaseExpr);
          Decay && Decay->getCastKind() == CK_ArrayToPointerDecay) {
        const Expr *Array = Decay->getSubExpr();
        if (!placeOfLValue(Array, P, Depth + 1))
          return false;
        if (Ctx.getAsConstantArrayType(Array->getType()) && P.Scaled.empty() &&
            P.Constant == 0)
          P.Subscripts.push_back(Index);
        else
          P.Scaled.push_back({Index, elementBytes(A->getType())});
        return true;
      }
      if (!placeOfPointer(BaseExpr, P, Depth + 1))
        return false;
      P.Scaled.push_back({Index, elementBytes(A->getType())});
      return true;
    }
    if (const auto *U = dyn_cast<UnaryOperator>(E);
        U && U->getOpcode() == UO_Deref)
      return placeOfPointer(U->getSubExpr(), P, Depth + 1);
    if (const auto *M = dyn_cast<MemberExpr>(E)) {
      const auto *Field = dyn_cast<FieldDecl>(M->getMemberDecl());
      if (!Field || Field->isBitField())
        return false;
      if (!(M->isArrow() ? placeOfPointer(M->getBase(), P, Depth + 1)
                         : placeOfLValue(M->getBase(), P, Depth + 1)))
        return false;
      const ASTRecordLayout &Layout =
          Ctx.getASTRecordLayout(Field->getParent());
      P.Constant += int64_t(Layout.getFieldOffset(Field->getFieldIndex()) / 8);
      return true;
    }
    return false;
  }

  bool placeOfPointer(const Expr *E, Place &P, int Depth = 0) {
    if (Depth > 32)
      return false;
    E = E->IgnoreParens();
    if (const auto *Cleanups = dyn_cast<ExprWithCleanups>(E))
      E = Cleanups->getSubExpr()->IgnoreParens();
    if (const auto *C = dyn_cast<CastExpr>(E)) {
      if (C->getCastKind() == CK_ArrayToPointerDecay)
        return placeOfLValue(C->getSubExpr(), P, Depth + 1);
      if ((C->getCastKind() == CK_BitCast || C->getCastKind() == CK_NoOp ||
           C->getCastKind() == CK_LValueToRValue) &&
          C->getSubExpr()->getType()->isPointerType())
        return placeOfPointer(C->getSubExpr(), P, Depth + 1);
    }
    if (const auto *U = dyn_cast<UnaryOperator>(E);
        U && U->getOpcode() == UO_AddrOf)
      return placeOfLValue(U->getSubExpr(), P, Depth + 1);
    // A function that only returns a pointer to one, taking no arguments
    // (cuda-samples' `SharedMemory<T>()`, whose conversion operator returns
    // `(T *)__smem`).
    if (const auto *C = dyn_cast<CastExpr>(E);
        C && C->getCastKind() == CK_UserDefinedConversion)
      return placeOfPointer(C->getSubExpr(), P, Depth + 1);
    if (const auto *Call = dyn_cast<CallExpr>(E);
        Call && Call->getNumArgs() == 0)
      if (const FunctionDecl *Callee = Call->getDirectCallee())
        if (const auto *Body =
                dyn_cast_or_null<CompoundStmt>(Callee->getBody())) {
          const ReturnStmt *Return = nullptr;
          for (const Stmt *S : Body->body())
            if (const auto *R = dyn_cast<ReturnStmt>(S))
              Return = R;
            else if (!isa<DeclStmt>(S))
              return false;
          return Return && Return->getRetValue() &&
                 placeOfPointer(Return->getRetValue(), P, Depth + 1);
        }
    if (const auto *B = dyn_cast<BinaryOperator>(E);
        B && (B->getOpcode() == BO_Add || B->getOpcode() == BO_Sub)) {
      const bool LeftPointer = B->getLHS()->getType()->isPointerType();
      const Expr *Pointer = LeftPointer ? B->getLHS() : B->getRHS();
      const Expr *Index = LeftPointer ? B->getRHS() : B->getLHS();
      if (!Pointer->getType()->isPointerType() ||
          Index->getType()->isPointerType())
        return false;
      if (!placeOfPointer(Pointer, P, Depth + 1))
        return false;
      const int64_t Scale = elementBytes(Pointer->getType()->getPointeeType());
      P.Scaled.push_back({Index, B->getOpcode() == BO_Sub ? -Scale : Scale});
      return true;
    }
    if (const auto *R = dyn_cast<DeclRefExpr>(E)) {
      const auto *VD = dyn_cast<VarDecl>(R->getDecl());
      if (!VD || !VD->isLocalVarDecl() || isa<ParmVarDecl>(VD) ||
          !VD->getInit() || !VD->getType()->isPointerType())
        return false;
      if (!placeOfPointer(VD->getInit(), P, Depth + 1))
        return false;
      if (!readOnly(VD) && P.Why.empty())
        P.Why = {ReasonKind::AccessThroughPointer, {VD->getName().str()}};
      return true;
    }
    return false;
  }

  int64_t elementBytes(QualType T) const {
    if (T->isIncompleteType() || T->isDependentType())
      return 0;
    return int64_t(Ctx.getTypeSizeInChars(T).getQuantity());
  }

  /// Records the load or store of \p E, when it is an access of a
  /// `__shared__` variable.
  void record(const Expr *E, bool Store) {
    Place P;
    if (!placeOfLValue(E, P) || !P.Var)
      return;
    const QualType T = E->getType();
    if (T->isIncompleteType() || T->isDependentType() || T->isArrayType())
      return;
    const int64_t Size = elementBytes(T);
    const int64_t Align = int64_t(Ctx.getTypeAlignInChars(T).getQuantity());
    // What one instruction moves: a record whose alignment is below its size
    // is copied field by field; those are not recorded.
    if (Size <= 0 || Size > 16 || (Size & (Size - 1)) != 0 || Align < Size)
      return;
    SharedAccess A;
    A.Loc = toSourcePos(Ctx.getSourceManager(), E->getBeginLoc());
    A.Text = textOf(E);
    A.Var = VarIndex.lookup(P.Var);
    A.Store = Store;
    A.Width = unsigned(Size);
    A.InLoop = LoopDepth > 0;
    A.NotAnalysable = P.Why;
    for (const Expr *S : P.Subscripts) {
      if (!A.NotAnalysable.empty())
        break;
      A.Subscripts.push_back(expression(S, A.NotAnalysable));
    }
    if (A.NotAnalysable.empty() && (!P.Scaled.empty() || P.Constant != 0)) {
      int Sum = addNode(A.Offset, Op::Const, P.Constant);
      for (const auto &[Index, Scale] : P.Scaled) {
        int I = convert(Index, A.Offset, A.NotAnalysable);
        if (I < 0)
          break;
        int Term = addNode(A.Offset, Op::Mul, 0, I,
                           addNode(A.Offset, Op::Const, Scale));
        Sum = addNode(A.Offset, Op::Add, 0, Sum, Term);
      }
    }
    for (const Guard &G : Guards) {
      if (!G.LaneDependent.empty() && A.NotAnalysable.empty())
        A.NotAnalysable = G.LaneDependent;
      if (!G.E.empty())
        A.Guards.push_back(G.E);
      if (!G.Assumed.empty())
        A.Assumed.push_back(G.Assumed);
    }
    if (!A.NotAnalysable.empty()) {
      A.Subscripts.clear();
      A.Offset.Nodes.clear();
      A.Guards.clear();
    } else {
      A.Loops = loopsUsed(A);
    }
    F.Accesses.push_back(std::move(A));
  }

  /// The loops whose counters \p A's expressions use, with the loops their
  /// bounds use, outermost (first recorded) first.
  std::vector<size_t> loopsUsed(const SharedAccess &A) const {
    std::set<size_t> Used;
    auto Collect = [&](const IndexExpr &E) {
      for (const IndexExpr::Node &N : E.Nodes)
        if (N.O == Op::Counter)
          Used.insert(size_t(N.Value));
    };
    for (const IndexExpr &E : A.Subscripts)
      Collect(E);
    Collect(A.Offset);
    for (const IndexExpr &E : A.Guards)
      Collect(E);
    for (size_t Before = 0; Before != Used.size();) {
      Before = Used.size();
      for (size_t L : std::set<size_t>(Used))
        if (L < F.Loops.size()) {
          Collect(F.Loops[L].Init);
          Collect(F.Loops[L].Condition);
          Collect(F.Loops[L].Next);
        }
    }
    return {Used.begin(), Used.end()};
  }

  ASTContext &Ctx;
  const Stmt *Body;
  const llvm::DenseMap<const VarDecl *, size_t> &VarIndex;
  FunctionFacts &F;
  std::vector<Guard> Guards;
  std::vector<Loop> Loops;
  unsigned LoopDepth = 0;
  llvm::DenseMap<const VarDecl *, bool> ReadOnly;
};

} // namespace

void collectSharedAccesses(
    ASTContext &Ctx, const FunctionDecl *FD,
    const llvm::DenseMap<const VarDecl *, size_t> &VarIndex, FunctionFacts &F) {
  if (!FD || !FD->hasBody() || FD->isDependentContext())
    return;
  AccessCollector(Ctx, FD, VarIndex, F).run();
}

} // namespace matchers
} // namespace tilefit
