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

#include "FunctionSlicer.h"

#include "tilefit/matchers/ScopeFacts.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/STLExtras.h"
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
    if (VD->hasAttr<CUDASharedAttr>()) {
      SharedNames.insert(VD->getName());
      SharedVars.push_back(VD);
    } else if (!VD->isLocalVarDecl() && !isa<ParmVarDecl>(VD) && VD->getInit())
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
  std::vector<VarDecl *> SharedVars;
  std::vector<Decl *> Types;
  std::vector<FunctionDecl *> Functions;
  std::vector<VarDecl *> Initialized;
  std::vector<FieldDecl *> Fields;
};

/// Who names each function and type declaration, by index into
/// UnitClosure::Nodes: the closures follow these edges backwards.
struct CallerIndex {
  llvm::DenseMap<DeclKey, std::vector<size_t>> CalledBy;
  /// Callers by name, each with the numbers of arguments it calls it with.
  llvm::DenseMap<uint32_t, std::vector<std::pair<size_t, Arities>>>
      CalledByName;
  llvm::DenseMap<DeclKey, std::vector<size_t>> MentionedBy;
};

/// For each type declaration, the type declarations that lead to it.
using TypeLeads = llvm::DenseMap<DeclKey, std::vector<DeclKey>>;

/// A closure as it is made: Closure's names by NameTable index.
struct Growing {
  explicit Growing(Closure &C) : C(C) {}
  Closure &C;
  llvm::DenseMap<uint32_t, Arities> ByName;

  bool calls(const ClosureNames &N) const {
    for (DeclKey F : N.Calls)
      if (C.Functions.count(F))
        return true;
    for (const auto &[Name, A] : N.Unresolved)
      if (auto It = ByName.find(Name); It != ByName.end() && (It->second & A))
        return true;
    return false;
  }
  /// Closure::ByName, from ByName.
  void publish(const std::vector<std::string> &Table) {
    for (const auto &[Name, A] : ByName)
      C.ByName[Table[Name]] |= A;
  }
};

/// Reaching::reaches, for the closure's view of a Names.
bool reaches(const Growing &G, const Reaching &Reach, const ClosureNames &N) {
  if (N.DefaultConstructsUnknown && Reach.DefaultConstructor)
    return true;
  for (DeclKey D : N.DefaultConstructed)
    if (Reach.Forming.count(D))
      return true;
  if (G.calls(N))
    return true;
  for (DeclKey D : N.Mentions)
    if (Reach.Forming.count(D))
      return true;
  return false;
}

/// The closure's view of \p N. \p Mentions: keep the types it names (the
/// closure reads them for lambdas and initializers only).
ClosureNames closureNames(const Names &N, UnitClosure &Unit, bool Mentions) {
  ClosureNames C;
  C.Direct = N.Direct;
  C.DefaultConstructsUnknown = N.DefaultConstructsUnknown;
  C.ArrayLocal = N.ArrayLocal;
  C.MaybeArrayLocals = N.MaybeArrayLocals > 0;
  for (const FunctionDecl *F : N.Calls)
    C.Calls.push_back(keyOf(F));
  for (const auto &U : N.Unresolved)
    C.Unresolved.push_back({Unit.nameIndex(U.getKey()), U.getValue()});
  for (const Decl *D : N.DefaultConstructed)
    C.DefaultConstructed.push_back(keyOf(D));
  if (Mentions)
    for (const Decl *D : N.Mentions)
      C.Mentions.push_back(keyOf(D));
  return C;
}

/// The type declarations each type declaration of \p Types leads to: what its
/// written types name, and for a class, its members' (a class whose member
/// type is a block primitive leads to it); added to \p LedToBy.
void typeLeads(llvm::ArrayRef<Decl *> Types, TypeLeads &LedToBy) {
  for (Decl *D : Types) {
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
        LedToBy[keyOf(N)].push_back(keyOf(Self));
  }
}

/// The closure's node for \p Fn, with what it names.
ClosureNode closureNode(const FunctionDecl *Fn, const Names &N,
                        const Names &Lambdas, UnitClosure &Unit) {
  ClosureNode C;
  C.Fn = Fn;
  C.FnKey = keyOf(Fn);
  C.Node = keyOf(nodeOf(Fn));
  C.Name = Unit.nameIndex(nameOf(Fn->getDeclName()));
  C.Accepts = aritiesOf(Fn);
  C.DeviceCallable = deviceCallable(Fn);
  const auto *Ctor = dyn_cast<CXXConstructorDecl>(Fn);
  if (Ctor && Ctor->isDefaultConstructor())
    C.DefaultConstructorOf = keyOf(normalizedType(Ctor->getParent()));
  C.CalledUnnamed = (Ctor && !Ctor->isDefaultConstructor()) ||
                    isa<CXXDestructorDecl, CXXConversionDecl>(Fn);
  C.Sliceable = sliceable(Fn);
  C.N = closureNames(N, Unit, false);
  C.Lambdas = closureNames(Lambdas, Unit, true);
  return C;
}

/// Who names what, over \p All.
CallerIndex callers(const std::vector<ClosureNode> &All) {
  CallerIndex Callers;
  for (size_t I = 0; I < All.size(); ++I)
    for (const ClosureNames *N : {&All[I].N, &All[I].Lambdas}) {
      for (DeclKey C : N->Calls)
        Callers.CalledBy[C].push_back(I);
      for (const auto &[Name, A] : N->Unresolved)
        Callers.CalledByName[Name].push_back({I, A});
      for (DeclKey D : N->DefaultConstructed)
        Callers.MentionedBy[D].push_back(I);
    }
  return Callers;
}

/// \p F joins \p G: the callers by name that can now call it (its name, with
/// a number of arguments it accepts and no function of \p G had accepted).
std::vector<size_t> newCallersByName(const ClosureNode &F, Growing &G,
                                     const CallerIndex &Callers) {
  Arities &Known = G.ByName[F.Name];
  const Arities New = F.Accepts & ~Known;
  std::vector<size_t> Out;
  if (!New)
    return Out;
  Known |= New;
  if (auto It = Callers.CalledByName.find(F.Name);
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
void closeReaching(const std::vector<ClosureNode> &All,
                   const CallerIndex &Callers, const TypeLeads &LedToBy,
                   llvm::ArrayRef<DeclKey> Types, Growing &G, Reaching &Reach,
                   std::vector<long> &Through) {
  std::vector<size_t> Work;
  std::vector<DeclKey> TypeWork;
  if (Through.size() != All.size())
    Through.assign(All.size(), -1);
  long From = -1;
  auto Mark = [&](size_t I) {
    if (All[I].DeviceCallable && Reach.Functions.insert(All[I].Node).second) {
      Through[I] = From;
      Work.push_back(I);
    }
  };
  auto Leads = [&](DeclKey D) {
    if (D && Reach.Forming.insert(D).second)
      TypeWork.push_back(D);
  };
  for (size_t I = 0; I < All.size(); ++I)
    if (All[I].N.Direct || All[I].Lambdas.Direct)
      Mark(I);
  for (DeclKey D : Types)
    Leads(D);
  while (!Work.empty() || !TypeWork.empty()) {
    if (!TypeWork.empty()) {
      const DeclKey D = TypeWork.back();
      TypeWork.pop_back();
      From = -1;
      if (auto It = LedToBy.find(D); It != LedToBy.end())
        for (DeclKey By : It->second)
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
    if (auto It = Callers.CalledBy.find(All[I].Node);
        It != Callers.CalledBy.end())
      for (size_t C : It->second)
        Mark(C);
    for (size_t C : newCallersByName(All[I], G, Callers))
      Mark(C);
    if (All[I].DefaultConstructorOf) {
      Reach.DefaultConstructor = true;
      Leads(All[I].DefaultConstructorOf);
    }
  }
}

/// The closure with the classes' default member initializers: a class whose
/// initializer reaches is made reaching shared memory wherever it is made
/// without a constructor of the inventory (an implicit or defaulted one), as a
/// default constructor that reaches makes it (the inventory's constructors read
/// the initializers themselves, SliceNames.cpp). Until nothing changes: such a
/// class may lead to another initializer's.
void closeOverInitializers(const std::vector<InitializerNode> &Inits,
                           const std::vector<ClosureNode> &All,
                           const CallerIndex &Callers, const TypeLeads &LedToBy,
                           Growing &G, Reaching &Reach,
                           std::vector<long> &Through) {
  std::vector<bool> Reaches(Inits.size(), false);
  std::vector<DeclKey> Types;
  do {
    closeReaching(All, Callers, LedToBy, Types, G, Reach, Through);
    Types.clear();
    for (size_t I = 0; I < Inits.size(); ++I)
      if (!Reaches[I] && reaches(G, Reach, Inits[I].N)) {
        Reaches[I] = true;
        Reach.DefaultConstructor = true;
        if (Inits[I].Class)
          Types.push_back(Inits[I].Class);
      }
  } while (!Types.empty());
}

/// Closes \p G over callers, from the functions whose names \p Seed accepts:
/// resolved calls, and calls by name where \p UseNames.
void closeCallers(Growing &G, bool UseNames,
                  llvm::function_ref<bool(const ClosureNames &)> Seed,
                  const std::vector<ClosureNode> &All,
                  const CallerIndex &Callers) {
  std::vector<size_t> W;
  auto Add = [&](size_t I) {
    if (All[I].DeviceCallable && G.C.Functions.insert(All[I].Node).second)
      W.push_back(I);
  };
  for (size_t I = 0; I < All.size(); ++I)
    if (Seed(All[I].N))
      Add(I);
  while (!W.empty()) {
    const size_t I = W.back();
    W.pop_back();
    if (auto It = Callers.CalledBy.find(All[I].Node);
        It != Callers.CalledBy.end())
      for (size_t C2 : It->second)
        Add(C2);
    if (UseNames)
      for (size_t C2 : newCallersByName(All[I], G, Callers))
        Add(C2);
  }
}

/// What holds per-thread arrays, closed the same way.
void closeArrays(const UnitClosure &Unit, const CallerIndex &Callers,
                 Reaching &Reach) {
  // Calls kept for the register view are resolved ones, which cost little to
  // keep; by name, what could hold arrays is CuTe's every function.
  Growing Arrays{Reach.Arrays};
  closeCallers(
      Arrays, false,
      [&](const ClosureNames &N) {
        return N.ArrayLocal || N.Outside == OutsideArrays::Exact;
      },
      Unit.Nodes, Callers);
  Growing Maybe{Reach.MaybeArrays};
  closeCallers(
      Maybe, true,
      [&](const ClosureNames &N) {
        return N.ArrayLocal || N.MaybeArrayLocals ||
               N.Outside != OutsideArrays::None;
      },
      Unit.Nodes, Callers);
  Arrays.publish(Unit.NameTable);
  Maybe.publish(Unit.NameTable);
}

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

/// The function of \p F: read now where it was recorded.
const FunctionDecl *functionOf(ASTContext &Ctx, const ClosureNode &F) {
  if (F.Fn)
    return F.Fn;
  return dyn_cast_or_null<FunctionDecl>(declOf(Ctx, F.FnKey));
}

std::string plainName(ASTContext &Ctx, const ClosureNode &F) {
  const FunctionDecl *Fn = functionOf(Ctx, F);
  return Fn ? plainName(Fn) : "?";
}

/// How \p I came to reach: the functions, each calling the next, down to one
/// that names shared memory itself (or whose default construction reaches).
std::string chain(ASTContext &Ctx, const std::vector<ClosureNode> &All,
                  const std::vector<long> &Through, size_t I) {
  std::vector<std::string> Steps;
  for (long J = Through[I]; J >= 0; J = Through[J])
    Steps.push_back(plainName(Ctx, All[J]));
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
Reason unnamedCall(ASTContext &Ctx, const std::vector<ClosureNode> &All,
                   const Reaching &Reach, const std::vector<long> &Through) {
  for (size_t I = 0; I < All.size(); ++I) {
    // A default constructor runs where an object is made without arguments:
    // those statements are kept (Reaching::reaches), and instantiations with
    // such a class among their arguments are checked afterwards
    // (BodySlicer::sound). An operator is called where its symbol is
    // written, which the statements' names record (operators on dependent
    // operands, `->` on a dependent base, range `for`'s implicit calls,
    // C++20's rewritten comparisons, an implicit operator's members':
    // SliceNames.cpp).
    if (All[I].CalledUnnamed && Reach.Functions.count(All[I].Node))
      return Reason(ReasonKind::SliceUnnamedCall,
                    {plainName(Ctx, All[I]), chain(Ctx, All, Through, I)});
  }
  return Reason();
}

/// A lambda that reaches is called where no name shows it: the function
/// that holds it is instantiated whole (it reaches already, through the
/// lambda's calls), and instantiations that receive a closure type are
/// checked afterwards (BodySlicer::sound).
void wholeFunctions(UnitClosure &Unit, const Growing &G, Reaching &Reach) {
  for (const ClosureNode &F : Unit.Nodes)
    if (F.Lambdas.Direct || reaches(G, Reach, F.Lambdas)) {
      Unit.Whole.insert(F.FnKey);
      Reach.Lambdas = true;
    }
}

/// Names in \p A also in \p B.
bool meets(const llvm::StringSet<> &A, const llvm::StringSet<> &B) {
  for (const auto &N : A)
    if (B.contains(N.getKey()))
      return true;
  return false;
}

/// The inventory's declarations read into the closure's input: \p Shared and
/// \p Aliases are the names and variables that count as `__shared__` for
/// them.
struct Part {
  std::vector<ClosureNode> Nodes;
  std::vector<InitializerNode> Inits;
  TypeLeads LedToBy;
  Reason Fallback;
};

Part readPart(ASTContext &Ctx, const Inventory &Inv,
              llvm::function_ref<bool(const Decl *)> Take,
              const llvm::StringSet<> &Shared,
              const llvm::DenseSet<DeclKey> &Aliases, bool Relocatable,
              UnitClosure &Unit) {
  Part P;
  for (FieldDecl *FD : Inv.Fields) {
    if (!Take(FD))
      continue;
    Names N;
    scanNames(Ctx, Shared, Aliases, nullptr, FD->getInClassInitializer(), N, N,
              Relocatable);
    if (N.Direct && P.Fallback.empty())
      P.Fallback =
          Reason(ReasonKind::SliceFieldInitializer, {FD->getNameAsString()});
    P.Inits.push_back(
        {keyOf(normalizedType(FD->getParent())), closureNames(N, Unit, true)});
  }
  std::vector<Decl *> Types;
  for (Decl *D : Inv.Types)
    if (Take(D))
      Types.push_back(D);
  typeLeads(Types, P.LedToBy);
  for (FunctionDecl *Fn : Inv.Functions) {
    if (!Take(Fn))
      continue;
    Names N, Lambdas;
    scanNames(Ctx, Shared, Aliases, Fn, Fn, N, Lambdas, Relocatable);
    P.Nodes.push_back(closureNode(Fn, N, Lambdas, Unit));
    Unit.Functions.push_back({Fn, std::move(N), std::move(Lambdas)});
  }
  return P;
}

/// The aliases among \p Inv's initialized variables that \p Take accepts.
void sharedAliases(const ASTContext &Ctx, const Inventory &Inv,
                   llvm::function_ref<bool(const Decl *)> Take,
                   const llvm::StringSet<> &Shared, bool Relocatable,
                   llvm::DenseSet<DeclKey> &Out) {
  const llvm::DenseSet<DeclKey> NoAliases;
  for (VarDecl *VD : Inv.Initialized) {
    if (!Take(VD))
      continue;
    Names N;
    scanNames(Ctx, Shared, NoAliases, nullptr, VD->getInit(), N, N,
              Relocatable);
    if (N.Direct)
      Out.insert(keyOf(VD));
  }
}

/// Every name \p P's code calls or names unresolved.
void unresolvedNames(const Part &P, const UnitClosure &Unit,
                     llvm::StringSet<> &Out) {
  auto Add = [&](const ClosureNames &N) {
    for (const auto &[Name, A] : N.Unresolved)
      Out.insert(Unit.NameTable[Name]);
  };
  for (const ClosureNode &F : P.Nodes) {
    Add(F.N);
    Add(F.Lambdas);
  }
  for (const InitializerNode &I : P.Inits)
    Add(I.N);
}

/// \p P as a record holds it: the declarations its code names that the parse
/// made itself (implicit members Sema declared as it needed them, builtins)
/// left out, since no later parse has them; they are never the closure's
/// nodes or types (neither is among the inventory's), so the closure over
/// the record is the closure over the declarations. False where one of \p P's
/// own functions or types is such a declaration (nothing is recorded then).
bool recordable(Part &P) {
  auto Odd = [](DeclKey K) { return K == 0 || (K & 1); };
  auto Keep = [&](std::vector<DeclKey> &Keys) {
    llvm::erase_if(Keys, [&](DeclKey K) { return !Odd(K); });
  };
  auto KeepNames = [&](ClosureNames &N) {
    Keep(N.Calls);
    Keep(N.DefaultConstructed);
    Keep(N.Mentions);
  };
  for (ClosureNode &F : P.Nodes) {
    if (!Odd(F.FnKey) || !Odd(F.Node) || !Odd(F.DefaultConstructorOf))
      return false;
    KeepNames(F.N);
    KeepNames(F.Lambdas);
  }
  for (InitializerNode &I : P.Inits) {
    if (!Odd(I.Class))
      return false;
    KeepNames(I.N);
  }
  for (auto It = P.LedToBy.begin(); It != P.LedToBy.end(); ++It) {
    if (!Odd(It->first)) {
      It->second.clear();
      continue;
    }
    Keep(It->second);
  }
  return true;
}

/// Adds \p P to what the closure reads: its functions to \p Unit's nodes, its
/// initializers and type leads to \p Inits and \p LedToBy.
void join(Part &&P, UnitClosure &Unit, std::vector<InitializerNode> &Inits,
          TypeLeads &LedToBy) {
  for (ClosureNode &F : P.Nodes)
    Unit.Nodes.push_back(std::move(F));
  for (InitializerNode &I : P.Inits)
    Inits.push_back(std::move(I));
  for (auto &[To, By] : P.LedToBy)
    LedToBy[To].insert(LedToBy[To].end(), By.begin(), By.end());
}

/// Once the inventory is known: the per-thread arrays of the functions \p Unit
/// read itself (its nodes from \p First on, Unit.Functions in the same order)
/// call outside it.
void readOutside(ASTContext &Ctx, UnitClosure &Unit, size_t First) {
  llvm::DenseSet<DeclKey> Inside;
  for (const ClosureNode &F : Unit.Nodes)
    Inside.insert(F.Node);
  OutsideArrays &Outside = Unit.Outside.emplace(Ctx, std::move(Inside));
  for (size_t I = First; I < Unit.Nodes.size(); ++I)
    Unit.Nodes[I].N.Outside = Outside.of(Unit.Functions[I - First].N);
}

/// A recorded name's index in \p Unit's table.
uint32_t renamed(const InventoryRecord &R, uint32_t Name, UnitClosure &Unit) {
  return Unit.nameIndex(Name < R.NameTable.size() ? R.NameTable[Name] : "");
}

/// \p N with its names in \p Unit's table.
ClosureNames renamed(const InventoryRecord &R, ClosureNames N,
                     UnitClosure &Unit) {
  for (auto &[Name, A] : N.Unresolved)
    Name = renamed(R, Name, Unit);
  return N;
}

/// The closure over \p Unit's nodes and \p Inits, \p LedToBy: steps 2 on.
Reason close(ASTContext &Ctx, const std::vector<InitializerNode> &Inits,
             const TypeLeads &LedToBy, Reaching &Reach, UnitClosure &Unit) {
  const CallerIndex Callers = callers(Unit.Nodes);
  std::vector<long> Through;
  Growing G{Reach};
  closeOverInitializers(Inits, Unit.Nodes, Callers, LedToBy, G, Reach, Through);
  G.publish(Unit.NameTable);
  closeArrays(Unit, Callers, Reach);
  Reason Fallback = unnamedCall(Ctx, Unit.Nodes, Reach, Through);
  if (!Fallback.empty())
    return Fallback;
  wholeFunctions(Unit, G, Reach);
  return Reason();
}

} // namespace

uint32_t UnitClosure::nameIndex(llvm::StringRef Name) {
  auto [It, New] = NameIndex.try_emplace(Name, NameTable.size());
  if (New)
    NameTable.push_back(Name.str());
  return It->second;
}

Reason closeOver(ASTContext &Ctx, llvm::ArrayRef<Decl *> Scope,
                 bool Relocatable, Reaching &Reach, UnitClosure &Unit,
                 const InventoryRecord *Recorded, InventoryRecord *Record) {
  if (Recorded && Recorded->Relocatable != Relocatable)
    Recorded = nullptr;
  Inventory Inv;
  for (Decl *D : Scope)
    if (!Recorded || !D->isFromASTFile())
      Inv.TraverseDecl(D);
  const auto Imported = [](const Decl *D) { return D->isFromASTFile(); };
  const auto Own = [](const Decl *D) { return !D->isFromASTFile(); };
  const auto Any = [](const Decl *) { return true; };

  if (Recorded) {
    // The header's part as recorded, the parse's own read: the header's code
    // was read with the header's `__shared__` names; one of the parse's own
    // that it names unresolved might change that, and all is read then.
    llvm::StringSet<> HeaderShared;
    for (uint32_t S : Recorded->Input.SharedNames)
      if (S < Recorded->NameTable.size())
        HeaderShared.insert(Recorded->NameTable[S]);
    for (const auto &N : Inv.SharedNames)
      if (!HeaderShared.contains(N.getKey()) &&
          Recorded->UnresolvedNames.contains(N.getKey()))
        return closeOver(Ctx, Scope, Relocatable, Reach, Unit);
    Unit.SharedNames = std::move(Inv.SharedNames);
    for (const auto &N : HeaderShared)
      Unit.SharedNames.insert(N.getKey());
    Unit.SharedAliases.insert(Recorded->Input.SharedAliases.begin(),
                              Recorded->Input.SharedAliases.end());
    sharedAliases(Ctx, Inv, Any, Unit.SharedNames, Relocatable,
                  Unit.SharedAliases);
    for (const ClosureNode &F : Recorded->Input.Nodes) {
      Unit.Nodes.push_back(F);
      ClosureNode &C = Unit.Nodes.back();
      C.Name = renamed(*Recorded, C.Name, Unit);
      C.N = renamed(*Recorded, std::move(C.N), Unit);
      C.Lambdas = renamed(*Recorded, std::move(C.Lambdas), Unit);
    }
    std::vector<InitializerNode> Inits;
    for (const InitializerNode &I : Recorded->Input.Initializers)
      Inits.push_back({I.Class, renamed(*Recorded, I.N, Unit)});
    TypeLeads LedToBy;
    for (const auto &[To, By] : Recorded->Input.LedToBy)
      LedToBy[To] = By;
    for (DeclKey F : Recorded->Input.Flowing)
      if (const auto *Fn = dyn_cast_or_null<FunctionDecl>(declOf(Ctx, F)))
        Unit.Flowing.push_back(Fn);
    Part Mine = readPart(Ctx, Inv, Any, Unit.SharedNames, Unit.SharedAliases,
                         Relocatable, Unit);
    if (!Mine.Fallback.empty())
      return Mine.Fallback;
    const size_t First = Unit.Nodes.size();
    join(std::move(Mine), Unit, Inits, LedToBy);
    readOutside(Ctx, Unit, First);
    Unit.FromRecord = true;
    return close(Ctx, Inits, LedToBy, Reach, Unit);
  }

  // The header's part (what a precompiled header holds) is read with the
  // header's `__shared__` names and aliases only, so that it can be recorded
  // for parses whose own code differs; the parse's own with all.
  llvm::StringSet<> HeaderShared;
  if (Record)
    for (VarDecl *VD : Inv.SharedVars)
      if (VD->isFromASTFile())
        HeaderShared.insert(VD->getName());
  Unit.SharedNames = std::move(Inv.SharedNames);
  Part Header;
  llvm::DenseSet<DeclKey> HeaderAliases;
  if (Record) {
    sharedAliases(Ctx, Inv, Imported, HeaderShared, Relocatable, HeaderAliases);
    Header = readPart(Ctx, Inv, Imported, HeaderShared, HeaderAliases,
                      Relocatable, Unit);
    llvm::StringSet<> Unresolved;
    unresolvedNames(Header, Unit, Unresolved);
    llvm::StringSet<> Added;
    for (const auto &N : Unit.SharedNames)
      if (!HeaderShared.contains(N.getKey()))
        Added.insert(N.getKey());
    if (meets(Added, Unresolved)) {
      // The parse's own names change the header's: read as one.
      Unit.SharedNames.clear();
      Unit.NameTable.clear();
      Unit.NameIndex.clear();
      Unit.Functions.clear();
      return closeOver(Ctx, Scope, Relocatable, Reach, Unit);
    }
    Unit.SharedAliases = HeaderAliases;
    sharedAliases(Ctx, Inv, Own, Unit.SharedNames, Relocatable,
                  Unit.SharedAliases);
  } else {
    sharedAliases(Ctx, Inv, Any, Unit.SharedNames, Relocatable,
                  Unit.SharedAliases);
  }
  Part Rest = readPart(Ctx, Inv, Record ? Own : Any, Unit.SharedNames,
                       Unit.SharedAliases, Relocatable, Unit);
  if (!Header.Fallback.empty())
    return Header.Fallback;
  if (!Rest.Fallback.empty())
    return Rest.Fallback;
  if (Record) {
    // Recorded before the parse's own joins it.
    Part Recordable = Header;
    if (recordable(Recordable)) {
      Record->Relocatable = Relocatable;
      Record->Input.Nodes = std::move(Recordable.Nodes);
      Record->Input.Initializers = std::move(Recordable.Inits);
      for (auto &[To, By] : Recordable.LedToBy)
        if (!By.empty())
          Record->Input.LedToBy.push_back({To, std::move(By)});
      for (const auto &N : HeaderShared)
        Record->Input.SharedNames.push_back(Unit.nameIndex(N.getKey()));
      Record->Input.SharedAliases.assign(HeaderAliases.begin(),
                                         HeaderAliases.end());
      unresolvedNames(Header, Unit, Record->UnresolvedNames);
    } else {
      Record = nullptr;
    }
  }
  std::vector<InitializerNode> Inits;
  TypeLeads LedToBy;
  join(std::move(Header), Unit, Inits, LedToBy);
  join(std::move(Rest), Unit, Inits, LedToBy);
  readOutside(Ctx, Unit, 0);
  if (Record) {
    for (size_t I = 0; I < Record->Input.Nodes.size(); ++I)
      Record->Input.Nodes[I].N.Outside = Unit.Nodes[I].N.Outside;
    Record->NameTable = Unit.NameTable;
  }
  return close(Ctx, Inits, LedToBy, Reach, Unit);
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
    if (!Inside.count(keyOf(F)))
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
    if (Functions.count(slicing::keyOf(F)))
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
    if (Forming.count(slicing::keyOf(D)))
      return true;
  return false;
}

bool Reaching::reaches(const Names &N) const {
  if (N.DefaultConstructsUnknown && DefaultConstructor)
    return true;
  for (const Decl *D : N.DefaultConstructed)
    if (Forming.count(slicing::keyOf(D)))
      return true;
  return calls(N);
}

} // namespace matchers
} // namespace tilefit
