//===- FunctionSlicer.cpp - Slice one device function template ------------===//
//
// Step 3 of body slicing (BodySlicer.h says what is kept and why): the body is
// cut into units, a leaf statement or a compound or control statement whose
// own parts (conditions, loop headers) go with it; what each unit names is
// scanned (SliceNames.h); units are kept to a fixed point, since a kept
// statement needs the declarations it uses and the statements around it; the
// units left out whose parents are kept become empty statements.
//
//===----------------------------------------------------------------------===//
#include "FunctionSlicer.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <memory>

namespace tilefit {
namespace matchers {
namespace slicing {

using namespace clang;

bool sliceable(const FunctionDecl *FD) {
  if (!FD->isTemplated() || !FD->hasBody() || FD->isConstexpr() ||
      FD->isDefaulted() || FD->isDeleted())
    return false;
  const bool Kernel = FD->hasAttr<CUDAGlobalAttr>();
  const bool DeviceOnly =
      FD->hasAttr<CUDADeviceAttr>() && !FD->hasAttr<CUDAHostAttr>();
  if (!Kernel && !DeviceOnly)
    return false;
  if (FD->getReturnType()->getContainedAutoType() ||
      FD->getReturnType()->isUndeducedType())
    return false;
  return isa_and_nonnull<CompoundStmt>(FD->getBody());
}

namespace {

/// One statement of a body being sliced: a leaf, or a compound or control
/// statement whose own parts (conditions, loop headers) go with it and whose
/// sub-statements are units of their own.
struct Unit {
  Stmt **Slot = nullptr; ///< Where it hangs; null for the body itself.
  Unit *Parent = nullptr;
  std::vector<Unit *> Children;
  Names Own;
  bool Kept = false;
};

/// Slices one function's body (sliceFunction).
class FunctionSlicer {
public:
  FunctionSlicer(ASTContext &Ctx, FunctionDecl *Fn,
                 const llvm::StringSet<> &SharedNames,
                 const llvm::DenseSet<DeclKey> &SharedAliases,
                 Positions ParamsMatter, const Reaching &Reach,
                 OutsideArrays &Outside, bool Relocatable)
      : Ctx(Ctx), Fn(Fn), SharedNames(SharedNames),
        SharedAliases(SharedAliases), ParamsMatter(ParamsMatter), Reach(Reach),
        Outside(Outside), Relocatable(Relocatable),
        Kernel(Fn->hasAttr<CUDAGlobalAttr>()) {}

  /// Slices the body; false where nothing was dropped (or nothing could be).
  /// \p DroppedParams: the parameters named in the statements left out.
  bool run(unsigned &Dropped, unsigned &MaybeArrays, Positions &DroppedParams,
           std::vector<std::pair<Stmt **, Stmt *>> &Replaced) {
    Stmt *Body = Fn->getBody();
    Unit *Root = build(nullptr, Body, nullptr);
    for (const auto &U : Units)
      if (U->Own.HasLabel)
        return false;
    // Uses of a parameter are kept where it may receive a `__shared__`
    // variable; every parameter's too where leaving them out would cost an
    // exact register view that keeping them keeps (a fill of a WMMA
    // fragment's elements: a local of dependent type set from a parameter).
    const Positions Matter = ParamsMatter;
    KeptParameters = Matter;
    decide(Root);
    if (KeptParameters != AnyPosition && droppedMaybeArrays() > 0) {
      KeptParameters = AnyPosition;
      decide(Root);
      if (droppedMaybeArrays() > 0) {
        KeptParameters = Matter;
        decide(Root);
      }
    }
    for (const auto &U : Units)
      if (!U->Kept && U->Parent && U->Parent->Kept) {
        ++Dropped;
        MaybeArrays += maybeArraysIn(*U);
        DroppedParams |= paramsIn(*U);
        Replaced.push_back({U->Slot, *U->Slot});
        *U->Slot = new (Ctx) NullStmt((*U->Slot)->getBeginLoc());
      }
    return Dropped > 0;
  }

  /// Which statements are kept (Unit::Kept), to a fixed point.
  void decide(Unit *Root) {
    for (const auto &U : Units)
      U->Kept = false;
    // A fixed point: keeping a statement needs the declarations it uses.
    llvm::SmallPtrSet<const Decl *, 32> Needed, Tainted;
    for (bool Changed = true; Changed;) {
      Changed = false;
      for (Unit *U : PostOrder) {
        if (U->Kept || !keeps(*U, Needed, Tainted))
          continue;
        U->Kept = true;
        Needed.insert(U->Own.Uses.begin(), U->Own.Uses.end());
        // An object that may be of a class whose default constructor reaches
        // goes wherever it is used.
        if (mayHoldReachingClass(U->Own))
          for (const Decl *D : U->Own.Declares)
            Tainted.insert(D);
        // A pointer or reference into a `__shared__` variable (`float *row =
        // &tile[r][0]`): the statements that access through it are accesses
        // of the variable, which the bank analysis reads.
        if (U->Own.Direct)
          for (const Decl *D : U->Own.Declares)
            if (const auto *VD = dyn_cast<VarDecl>(D);
                VD && (VD->getType()->isPointerType() ||
                       VD->getType()->isReferenceType()))
              Tainted.insert(D);
        Changed = true;
      }
    }
    Root->Kept = true;
  }

  /// The statements decide() leaves out that may hold per-thread arrays.
  unsigned droppedMaybeArrays() const {
    unsigned N = 0;
    for (const auto &U : Units)
      if (!U->Kept && U->Parent && U->Parent->Kept)
        N += maybeArraysIn(*U);
    return N;
  }

private:
  Unit *build(Stmt **Slot, Stmt *S, Unit *Parent) {
    Units.push_back(std::make_unique<Unit>());
    Unit *U = Units.back().get();
    U->Slot = Slot;
    U->Parent = Parent;
    if (Parent)
      Parent->Children.push_back(U);
    Stmt *Sub = S;
    while (auto *A = dyn_cast_or_null<AttributedStmt>(Sub)) // #pragma unroll
      Sub = A->getSubStmt();
    std::vector<Stmt **> Bodies;
    if (!Sub) {
      // nothing
    } else if (auto *C = dyn_cast<CompoundStmt>(Sub)) {
      for (Stmt *&Child : C->body())
        Bodies.push_back(&Child);
    } else if (isa<IfStmt, ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(Sub)) {
      llvm::SmallPtrSet<const Stmt *, 2> BodyStmts;
      if (auto *I = dyn_cast<IfStmt>(Sub)) {
        BodyStmts.insert(I->getThen());
        BodyStmts.insert(I->getElse());
      } else if (auto *F = dyn_cast<ForStmt>(Sub)) {
        BodyStmts.insert(F->getBody());
      } else if (auto *W = dyn_cast<WhileStmt>(Sub)) {
        BodyStmts.insert(W->getBody());
      } else if (auto *D = dyn_cast<DoStmt>(Sub)) {
        BodyStmts.insert(D->getBody());
      } else {
        BodyStmts.insert(cast<CXXForRangeStmt>(Sub)->getBody());
      }
      // The condition's variable, the loop's header: the statement's own.
      for (Stmt *&Child : Sub->children()) {
        if (!Child)
          continue;
        if (BodyStmts.count(Child))
          Bodies.push_back(&Child);
        else
          scan(Child, U->Own);
      }
    } else {
      scan(Sub, U->Own);
    }
    for (Stmt **B : Bodies)
      build(B, *B, U);
    PostOrder.push_back(U); // children before their parents
    return U;
  }

  /// What a lambda in it calls counts for the statement.
  void scan(Stmt *S, Names &Out) {
    scanNames(Ctx, SharedNames, SharedAliases, Fn, S, Out, Out, Relocatable);
  }

  bool mayHoldReachingClass(const Names &N) const {
    if (N.DefaultConstructsUnknown && Reach.DefaultConstructor)
      return true;
    for (const Decl *D : N.DefaultConstructed)
      if (Reach.Forming.count(keyOf(D)))
        return true;
    for (const Decl *D : N.Mentions)
      if (Reach.Forming.count(keyOf(D)))
        return true;
    return false;
  }

  bool keeps(const Unit &U, const llvm::SmallPtrSetImpl<const Decl *> &Needed,
             const llvm::SmallPtrSetImpl<const Decl *> &Tainted) {
    const Names &N = U.Own;
    for (const Decl *D : N.Uses)
      if (Tainted.count(D))
        return true;
    if (N.Direct || N.KeptHere || N.Returns || N.UsingDecl || N.ArrayLocal ||
        Reach.reaches(N) || Reach.Arrays.calls(N) ||
        Outside.of(N) == OutsideArrays::Exact)
      return true;
    if (N.StaticAssert && !N.NamesNonConstant)
      return true;
    // Whether a parameter is used decides whether a `__shared__` variable
    // passed as its argument counts; kernels receive none.
    if ((N.ParamsNamed & KeptParameters) && !Kernel)
      return true;
    for (const Decl *D : N.Declares)
      if (Needed.count(D))
        return true;
    for (const Unit *C : U.Children)
      if (C->Kept)
        return true;
    return false;
  }

  static Positions paramsIn(const Unit &U) {
    Positions P = U.Own.ParamsNamed;
    for (const Unit *C : U.Children)
      P |= paramsIn(*C);
    return P;
  }

  unsigned maybeArraysIn(const Unit &U) const {
    unsigned N =
        U.Own.MaybeArrayLocals + (Reach.MaybeArrays.calls(U.Own) ||
                                  Outside.of(U.Own) != OutsideArrays::None);
    for (const Unit *C : U.Children)
      N += maybeArraysIn(*C);
    return N;
  }

  ASTContext &Ctx;
  FunctionDecl *Fn;
  const llvm::StringSet<> &SharedNames;
  const llvm::DenseSet<DeclKey> &SharedAliases;
  /// The parameters that may receive a `__shared__` variable.
  const Positions ParamsMatter;
  const Reaching &Reach;
  OutsideArrays &Outside;
  const bool Relocatable;
  const bool Kernel;
  /// The parameters whose uses are kept.
  Positions KeptParameters = AnyPosition;
  std::vector<std::unique_ptr<Unit>> Units;
  std::vector<Unit *> PostOrder;
};

} // namespace

bool sliceFunction(ASTContext &Ctx, FunctionDecl *Fn, UnitClosure &Closed,
                   Positions ParamsMatter, const Reaching &Reach,
                   bool Relocatable, unsigned &Dropped, unsigned &MaybeArrays,
                   Positions &DroppedParams,
                   std::vector<std::pair<Stmt **, Stmt *>> &Replaced) {
  FunctionSlicer S(Ctx, Fn, Closed.SharedNames, Closed.SharedAliases,
                   ParamsMatter, Reach, *Closed.Outside, Relocatable);
  return S.run(Dropped, MaybeArrays, DroppedParams, Replaced);
}

} // namespace slicing
} // namespace matchers
} // namespace tilefit
