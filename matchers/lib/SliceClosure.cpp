//===- SliceClosure.cpp - What can reach shared memory --------------------===//
//
// Steps 1 and 2 of body slicing (BodySlicer.h says what is kept and why):
// 1. An inventory of the unit: every `__shared__` variable's name, every
//    function with a body (templates' patterns), what each body names.
// 2. The closure over names: a name reaches shared memory when a function of
//    that name declares or names a `__shared__` variable (or launches, or
//    allocates Tensor Memory), or names a name that reaches. Names, not
//    declarations, so that every overload and every ADL candidate counts.
//    Type declarations are closed alongside (those that lead to a class whose
//    default constructor reaches), then what holds per-thread arrays; where
//    Clang calls a reaching function without its name or symbol written (a
//    constructor with arguments, a destructor, a conversion), nothing is
//    sliced.
//
//===----------------------------------------------------------------------===//
#include "SliceClosure.h"

#include "tilefit/matchers/ScopeFacts.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

#include <algorithm>

namespace tilefit {
namespace matchers {

using namespace clang;

namespace slicing {
namespace {

/// Every function with a body and every `__shared__` variable among the
/// traversal's declarations; patterns, not instantiations.
class Inventory : public RecursiveASTVisitor<Inventory> {
public:
  bool shouldVisitTemplateInstantiations() const { return false; }
  bool shouldVisitImplicitCode() const { return false; }

  bool VisitVarDecl(VarDecl *VD) {
    if (VD->hasAttr<CUDASharedAttr>())
      SharedNames.insert(VD->getName());
    else if (!VD->isLocalVarDecl() && !isa<ParmVarDecl>(VD) && VD->getInit())
      Initialized.push_back(VD);
    return true;
  }
  bool VisitFieldDecl(FieldDecl *FD) {
    if (FD->hasInClassInitializer())
      Fields.push_back(FD);
    return true;
  }
  bool VisitFunctionDecl(FunctionDecl *FD) {
    if (FD->doesThisDeclarationHaveABody() &&
        (deviceCallable(FD) || FD->hasAttr<CUDAGlobalAttr>()))
      Functions.push_back(FD);
    return true;
  }
  bool VisitCXXRecordDecl(CXXRecordDecl *R) {
    if (R->isThisDeclarationADefinition() && !R->isLambda())
      Types.push_back(R);
    return true;
  }
  /// A device lambda outside device code (an extended lambda written in host
  /// code, passed to a kernel): a function of its own, named `operator()`,
  /// since no function of the inventory holds it. Those inside device
  /// functions count for them (FunctionNode::Lambdas).
  bool VisitLambdaExpr(LambdaExpr *E) {
    CXXMethodDecl *Call = E->getCallOperator();
    if (!Call || !Call->doesThisDeclarationHaveABody() || !deviceCallable(Call))
      return true;
    const DeclContext *DC = E->getLambdaClass()->getDeclContext();
    while (DC && !isa<FunctionDecl>(DC))
      DC = DC->getParent();
    const auto *Holder = dyn_cast_or_null<FunctionDecl>(DC);
    if (!Holder ||
        !(deviceCallable(Holder) || Holder->hasAttr<CUDAGlobalAttr>()))
      Functions.push_back(Call);
    return true;
  }
  bool VisitTypedefNameDecl(TypedefNameDecl *T) {
    Types.push_back(T);
    return true;
  }

  llvm::StringSet<> SharedNames;
  std::vector<Decl *> Types;
  std::vector<FunctionDecl *> Functions;
  std::vector<VarDecl *> Initialized;
  std::vector<FieldDecl *> Fields;
};

/// Who names each function and type declaration, by index into
/// UnitClosure::Functions: the closures follow these edges backwards.
struct CallerIndex {
  llvm::DenseMap<const FunctionDecl *, std::vector<size_t>> CalledBy;
  /// Callers by name, each with the numbers of arguments it calls it with.
  llvm::StringMap<std::vector<std::pair<size_t, Arities>>> CalledByName;
  llvm::DenseMap<const Decl *, std::vector<size_t>> MentionedBy;
};

/// For each type declaration, the type declarations that lead to it.
using TypeLeads = llvm::DenseMap<const Decl *, std::vector<const Decl *>>;

/// Variables outside functions whose initializers name a `__shared__`
/// variable stand for it.
llvm::DenseSet<const VarDecl *> sharedAliases(const ASTContext &Ctx,
                                              const Inventory &Inv,
                                              const UnitClosure &Unit,
                                              bool Relocatable) {
  llvm::DenseSet<const VarDecl *> SharedAliases;
  const llvm::DenseSet<const VarDecl *> NoAliases;
  for (VarDecl *VD : Inv.Initialized) {
    Names N;
    scanNames(Ctx, Unit.SharedNames, NoAliases, nullptr, VD->getInit(), N, N,
              Relocatable);
    if (N.Direct)
      SharedAliases.insert(VD);
  }
  return SharedAliases;
}

/// Why nothing is sliced where a field initializer names a `__shared__`
/// variable; none where none does.
Reason sharedFieldInitializer(const ASTContext &Ctx, const Inventory &Inv,
                              const UnitClosure &Unit, bool Relocatable) {
  for (FieldDecl *FD : Inv.Fields) {
    Names N;
    scanNames(Ctx, Unit.SharedNames, Unit.SharedAliases, nullptr,
              FD->getInClassInitializer(), N, N, Relocatable);
    if (N.Direct)
      return Reason(ReasonKind::SliceFieldInitializer, {FD->getNameAsString()});
  }
  return Reason();
}

/// The type declarations each type declaration leads to: what its written
/// types name, and for a class, its members' (a class whose member type is a
/// block primitive leads to it).
TypeLeads typeLeads(const Inventory &Inv) {
  TypeLeads LedToBy;
  for (Decl *D : Inv.Types) {
    const Decl *Self = normalizedType(D);
    if (!Self)
      continue;
    llvm::SmallPtrSet<const Decl *, 8> Named;
    if (const auto *T = dyn_cast<TypedefNameDecl>(D)) {
      if (TypeSourceInfo *TSI = T->getTypeSourceInfo())
        typeMentions(TSI->getTypeLoc(), Named);
    } else if (const auto *R = dyn_cast<CXXRecordDecl>(D)) {
      for (const CXXBaseSpecifier &B : R->bases())
        if (TypeSourceInfo *TSI = B.getTypeSourceInfo())
          typeMentions(TSI->getTypeLoc(), Named);
      for (const Decl *M : R->decls()) {
        if (const auto *F = dyn_cast<FieldDecl>(M)) {
          if (TypeSourceInfo *TSI = F->getTypeSourceInfo())
            typeMentions(TSI->getTypeLoc(), Named);
        } else if (const auto *V = dyn_cast<VarDecl>(M)) {
          if (TypeSourceInfo *TSI = V->getTypeSourceInfo())
            typeMentions(TSI->getTypeLoc(), Named);
        } else if (const Decl *Member = normalizedType(M)) {
          Named.insert(Member);
        } else if (const auto *CT = dyn_cast<ClassTemplateDecl>(M)) {
          Named.insert(normalizedType(CT));
        }
      }
    }
    for (const Decl *N : Named)
      if (N && N != Self)
        LedToBy[N].push_back(Self);
  }
  return LedToBy;
}

/// What each function names, into \p Unit's Functions, and who names what.
CallerIndex scanFunctions(const ASTContext &Ctx, const Inventory &Inv,
                          UnitClosure &Unit, bool Relocatable) {
  std::vector<FunctionNode> &All = Unit.Functions;
  All.resize(Inv.Functions.size());
  CallerIndex Callers;
  for (size_t I = 0; I < Inv.Functions.size(); ++I) {
    FunctionNode &F = All[I];
    F.Fn = Inv.Functions[I];
    scanNames(Ctx, Unit.SharedNames, Unit.SharedAliases, F.Fn, F.Fn, F.N,
              F.Lambdas, Relocatable);
    for (const Names *N : {&F.N, &F.Lambdas}) {
      for (const FunctionDecl *C : N->Calls)
        Callers.CalledBy[C].push_back(I);
      for (const auto &C : N->Unresolved)
        Callers.CalledByName[C.getKey()].push_back({I, C.getValue()});
      for (const Decl *D : N->DefaultConstructed)
        Callers.MentionedBy[D].push_back(I);
    }
  }
  return Callers;
}

/// \p FD joins \p C: the callers by name that can now call it (its name, with
/// a number of arguments it accepts and no function of \p C had accepted).
std::vector<size_t> newCallersByName(const FunctionDecl *FD, Closure &C,
                                     const CallerIndex &Callers) {
  const std::string Name = nameOf(FD->getDeclName());
  uint32_t &Known = C.ByName[Name];
  const Arities New = aritiesOf(FD) & ~Known;
  std::vector<size_t> Out;
  if (!New)
    return Out;
  Known |= New;
  if (auto It = Callers.CalledByName.find(Name);
      It != Callers.CalledByName.end())
    for (const auto &[Caller, Called] : It->second)
      if (Called & New)
        Out.push_back(Caller);
  return Out;
}

/// The closure: a function reaches when it names a `__shared__` variable,
/// calls one that reaches (resolved, or any of the name where the call is not
/// resolved), or names a type that leads to a class whose default constructor
/// reaches (CUB's block primitives, whose PrivateStorage is a `__shared__`
/// static).
/// \p Types: type declarations whose default construction reaches other than
/// through a constructor of the inventory (closeOverInitializers); a closure
/// made before is carried on.
void closeReaching(const std::vector<FunctionNode> &All,
                   const CallerIndex &Callers, const TypeLeads &LedToBy,
                   llvm::ArrayRef<const Decl *> Types, Reaching &Reach,
                   std::vector<long> &Through) {
  std::vector<size_t> Work;
  std::vector<const Decl *> TypeWork;
  if (Through.size() != All.size())
    Through.assign(All.size(), -1);
  long From = -1;
  auto Mark = [&](size_t I) {
    const FunctionDecl *FD = All[I].Fn;
    if (deviceCallable(FD) && Reach.Functions.insert(nodeOf(FD)).second) {
      Through[I] = From;
      Work.push_back(I);
    }
  };
  auto Leads = [&](const Decl *D) {
    if (D && Reach.Forming.insert(D).second)
      TypeWork.push_back(D);
  };
  for (size_t I = 0; I < All.size(); ++I)
    if (All[I].N.Direct || All[I].Lambdas.Direct)
      Mark(I);
  for (const Decl *D : Types)
    Leads(D);
  while (!Work.empty() || !TypeWork.empty()) {
    if (!TypeWork.empty()) {
      const Decl *D = TypeWork.back();
      TypeWork.pop_back();
      From = -1;
      if (auto It = LedToBy.find(D); It != LedToBy.end())
        for (const Decl *By : It->second)
          Leads(By);
      if (auto It = Callers.MentionedBy.find(D);
          It != Callers.MentionedBy.end())
        for (size_t C : It->second)
          Mark(C);
      continue;
    }
    const size_t I = Work.back();
    Work.pop_back();
    From = static_cast<long>(I);
    const FunctionDecl *FD = All[I].Fn;
    if (auto It = Callers.CalledBy.find(nodeOf(FD));
        It != Callers.CalledBy.end())
      for (size_t C : It->second)
        Mark(C);
    for (size_t C : newCallersByName(FD, Reach, Callers))
      Mark(C);
    if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(FD);
        Ctor && Ctor->isDefaultConstructor()) {
      Reach.DefaultConstructor = true;
      Leads(normalizedType(Ctor->getParent()));
    }
  }
}

/// The closure with the classes' default member initializers: a class whose
/// initializer reaches is made reaching shared memory wherever it is made
/// without a constructor of the inventory (an implicit or defaulted one), as a
/// default constructor that reaches makes it (the inventory's constructors read
/// the initializers themselves, SliceNames.cpp). Until nothing changes: such a
/// class may lead to another initializer's.
void closeOverInitializers(const ASTContext &Ctx, const Inventory &Inv,
                           const UnitClosure &Unit, bool Relocatable,
                           const std::vector<FunctionNode> &All,
                           const CallerIndex &Callers,
                           const TypeLeads &LedToBy, Reaching &Reach,
                           std::vector<long> &Through) {
  std::vector<Names> Inits(Inv.Fields.size());
  for (size_t I = 0; I < Inv.Fields.size(); ++I)
    scanNames(Ctx, Unit.SharedNames, Unit.SharedAliases, nullptr,
              Inv.Fields[I]->getInClassInitializer(), Inits[I], Inits[I],
              Relocatable);
  std::vector<bool> Reaches(Inv.Fields.size(), false);
  std::vector<const Decl *> Types;
  do {
    closeReaching(All, Callers, LedToBy, Types, Reach, Through);
    Types.clear();
    for (size_t I = 0; I < Inv.Fields.size(); ++I)
      if (!Reaches[I] && Reach.reaches(Inits[I])) {
        Reaches[I] = true;
        Reach.DefaultConstructor = true;
        if (const Decl *T = normalizedType(Inv.Fields[I]->getParent()))
          Types.push_back(T);
      }
  } while (!Types.empty());
}

/// Closes \p C over callers, from the functions whose Names \p Seed accepts:
/// resolved calls, and calls by name where \p UseNames.
void closeCallers(Closure &C, bool UseNames,
                  llvm::function_ref<bool(const Names &)> Seed,
                  const std::vector<FunctionNode> &All,
                  const CallerIndex &Callers) {
  std::vector<size_t> W;
  auto Add = [&](size_t I) {
    if (deviceCallable(All[I].Fn) &&
        C.Functions.insert(nodeOf(All[I].Fn)).second)
      W.push_back(I);
  };
  for (size_t I = 0; I < All.size(); ++I)
    if (Seed(All[I].N))
      Add(I);
  while (!W.empty()) {
    const FunctionDecl *FD = All[W.back()].Fn;
    W.pop_back();
    if (auto It = Callers.CalledBy.find(nodeOf(FD));
        It != Callers.CalledBy.end())
      for (size_t C2 : It->second)
        Add(C2);
    if (UseNames)
      for (size_t C2 : newCallersByName(FD, C, Callers))
        Add(C2);
  }
}

/// What holds per-thread arrays, closed the same way; \p Unit's Outside is
/// made here.
void closeArrays(const ASTContext &Ctx, UnitClosure &Unit,
                 const CallerIndex &Callers, Reaching &Reach) {
  // Calls kept for the register view are resolved ones, which cost little to
  // keep; by name, what could hold arrays is CuTe's every function.
  llvm::DenseSet<const FunctionDecl *> Inside;
  for (const FunctionNode &F : Unit.Functions)
    Inside.insert(nodeOf(F.Fn));
  OutsideArrays &Outside = Unit.Outside.emplace(Ctx, std::move(Inside));
  closeCallers(
      Reach.Arrays, false,
      [&](const Names &N) {
        return N.ArrayLocal || Outside.of(N) == OutsideArrays::Exact;
      },
      Unit.Functions, Callers);
  closeCallers(
      Reach.MaybeArrays, true,
      [&](const Names &N) {
        return N.ArrayLocal || N.MaybeArrayLocals > 0 ||
               Outside.of(N) != OutsideArrays::None;
      },
      Unit.Functions, Callers);
}

/// How \p I came to reach: the functions, each calling the next, down to one
/// that names shared memory itself (or whose default construction reaches).
/// \p D's qualified name without template arguments (a partial
/// specialization's as its template's): short enough for a reason.
std::string plainName(const NamedDecl *D) {
  std::vector<std::string> Parts{D->getNameAsString()};
  for (const DeclContext *DC = D->getDeclContext(); DC; DC = DC->getParent())
    if (const auto *N = dyn_cast<NamedDecl>(DC); N && N->getDeclName())
      Parts.push_back(N->getNameAsString());
  std::reverse(Parts.begin(), Parts.end());
  return llvm::join(Parts, "::");
}

std::string chain(const std::vector<FunctionNode> &All,
                  const std::vector<long> &Through, size_t I) {
  std::vector<std::string> Steps;
  for (long J = Through[I]; J >= 0; J = Through[J])
    Steps.push_back(plainName(All[J].Fn));
  if (Steps.empty())
    return "by itself";
  // The first calls and the function that names shared memory itself.
  if (Steps.size() > 6) {
    Steps.erase(Steps.begin() + 3, Steps.end() - 3);
    Steps.insert(Steps.begin() + 3, "...");
  }
  return "through " + llvm::join(Steps, ", ");
}

/// Where Clang calls a function that reaches without its name written, the
/// statements that make the call cannot be told: why nothing is sliced, or ""
/// where no such function reaches.
Reason unnamedCall(const std::vector<FunctionNode> &All, const Reaching &Reach,
                   const std::vector<long> &Through) {
  for (size_t I = 0; I < All.size(); ++I) {
    const FunctionNode &F = All[I];
    if (!Reach.Functions.count(nodeOf(F.Fn)))
      continue;
    // A default constructor runs where an object is made without arguments:
    // those statements are kept (Reaching::reaches), and instantiations with
    // such a class among their arguments are checked afterwards
    // (BodySlicer::sound).
    const auto *Ctor = dyn_cast<CXXConstructorDecl>(F.Fn);
    // An operator is called where its symbol is written, which the
    // statements' names record (operators on dependent operands, `->` on a
    // dependent base, range `for`'s implicit calls, C++20's rewritten
    // comparisons, an implicit operator's members': SliceNames.cpp).
    if ((Ctor && !Ctor->isDefaultConstructor()) ||
        isa<CXXDestructorDecl, CXXConversionDecl>(F.Fn))
      return Reason(ReasonKind::SliceUnnamedCall,
                    {plainName(F.Fn), chain(All, Through, I)});
  }
  return Reason();
}

/// A lambda that reaches is called where no name shows it: the function
/// that holds it is instantiated whole (it reaches already, through the
/// lambda's calls), and instantiations that receive a closure type are
/// checked afterwards (BodySlicer::sound).
void wholeFunctions(UnitClosure &Unit, Reaching &Reach) {
  for (const FunctionNode &F : Unit.Functions)
    if (F.Lambdas.Direct || Reach.reaches(F.Lambdas)) {
      Unit.Whole.insert(F.Fn);
      Reach.Lambdas = true;
    }
}

} // namespace

Reason closeOver(ASTContext &Ctx, llvm::ArrayRef<Decl *> Scope,
                 bool Relocatable, Reaching &Reach, UnitClosure &Unit) {
  Inventory Inv;
  for (Decl *D : Scope)
    Inv.TraverseDecl(D);
  Unit.SharedNames = std::move(Inv.SharedNames);
  Unit.SharedAliases = sharedAliases(Ctx, Inv, Unit, Relocatable);
  Reason Fallback = sharedFieldInitializer(Ctx, Inv, Unit, Relocatable);
  if (!Fallback.empty())
    return Fallback;
  const TypeLeads LedToBy = typeLeads(Inv);
  const CallerIndex Callers = scanFunctions(Ctx, Inv, Unit, Relocatable);
  std::vector<long> Through;
  closeOverInitializers(Ctx, Inv, Unit, Relocatable, Unit.Functions, Callers,
                        LedToBy, Reach, Through);
  closeArrays(Ctx, Unit, Callers, Reach);
  Fallback = unnamedCall(Unit.Functions, Reach, Through);
  if (!Fallback.empty())
    return Fallback;
  wholeFunctions(Unit, Reach);
  return Reason();
}

/// Reads one function's body, and those it calls, for per-thread arrays.
class OutsideArrays::Scan : public RecursiveASTVisitor<Scan> {
public:
  Scan(OutsideArrays &O, unsigned Depth) : O(O), Depth(Depth) {}
  bool shouldVisitTemplateInstantiations() const { return false; }
  bool VisitVarDecl(VarDecl *VD) {
    if (isa<ParmVarDecl>(VD) || !VD->hasLocalStorage())
      return true;
    const QualType T = VD->getType();
    if (T->isArrayType() || (!T->isDependentType() && !T->isUndeducedType() &&
                             isPerThreadArray(O.Ctx, VD)))
      Result = Exact;
    else if (T->isDependentType() || T->isUndeducedType())
      Result = std::max(Result, Maybe);
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    if (const auto *F = dyn_cast<FunctionDecl>(E->getDecl()))
      Result = std::max(Result, O.kind(F, Depth + 1));
    return true;
  }
  bool VisitMemberExpr(MemberExpr *E) {
    if (const auto *F = dyn_cast<FunctionDecl>(E->getMemberDecl()))
      Result = std::max(Result, O.kind(F, Depth + 1));
    return true;
  }
  bool VisitOverloadExpr(OverloadExpr *) {
    Result = std::max(Result, Maybe);
    return true;
  }
  Kind Result = None;

private:
  OutsideArrays &O;
  unsigned Depth;
};

OutsideArrays::Kind OutsideArrays::of(const Names &N) {
  Kind K = None;
  for (const FunctionDecl *F : N.Calls)
    if (!Inside.count(F))
      K = std::max(K, kind(F, 0));
  return K;
}

OutsideArrays::Kind OutsideArrays::kind(const FunctionDecl *FD,
                                        unsigned Depth) {
  const FunctionDecl *Def = FD->getDefinition();
  if (!Def || !Def->hasBody() || Depth > 8)
    return None;
  auto [It, New] = Known.try_emplace(Def->getCanonicalDecl(), None);
  if (!New)
    return It->second;
  Scan S(*this, Depth);
  S.TraverseStmt(Def->getBody());
  Known[Def->getCanonicalDecl()] = S.Result;
  return S.Result;
}

} // namespace slicing

bool Closure::calls(const Names &N) const {
  for (const FunctionDecl *F : N.Calls)
    if (Functions.count(F))
      return true;
  for (const auto &U : N.Unresolved)
    if (auto It = ByName.find(U.getKey());
        It != ByName.end() && (It->second & U.getValue()))
      return true;
  return false;
}

bool Reaching::calls(const Names &N) const {
  if (Closure::calls(N))
    return true;
  for (const Decl *D : N.Mentions)
    if (Forming.count(D))
      return true;
  return false;
}

bool Reaching::reaches(const Names &N) const {
  if (N.DefaultConstructsUnknown && DefaultConstructor)
    return true;
  for (const Decl *D : N.DefaultConstructed)
    if (Forming.count(D))
      return true;
  return calls(N);
}

} // namespace matchers
} // namespace tilefit
