//===- BodySlicer.cpp - Instantiate only what can reach shared memory -----===//
//
// Three steps (BodySlicer.h says what is kept and why):
// 1. An inventory of the unit: every `__shared__` variable's name, every
//    function with a body (templates' patterns), what each body names.
// 2. The closure over names: a name reaches shared memory when a function of
//    that name declares or names a `__shared__` variable (or launches, or
//    allocates Tensor Memory), or names a name that reaches. Names, not
//    declarations, so that every overload and every ADL candidate counts.
// 3. Each device function template's body, statement by statement: what is
//    kept, the declarations it needs, the rest replaced by empty statements;
//    done as Sema is about to instantiate it first (beforeInstantiating).
//
// This file drives them and checks instantiations afterwards (sound); what
// code names is SliceNames.cpp's, steps 1 and 2 SliceClosure.cpp's, step 3
// FunctionSlicer.cpp's.
//
//===----------------------------------------------------------------------===//
#include "tilefit/matchers/BodySlicer.h"

#include "ArgumentFlow.h"
#include "FunctionSlicer.h"
#include "SliceClosure.h"
#include "SliceNames.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"

#include <algorithm>

namespace tilefit {
namespace matchers {

using namespace clang;
using namespace slicing;

/// Puts back the statements \p Replaced records, latest first, and forgets
/// them.
static void undo(std::vector<std::pair<Stmt **, Stmt *>> &Replaced) {
  for (auto It = Replaced.rbegin(); It != Replaced.rend(); ++It)
    *It->first = It->second;
  Replaced.clear();
}

BodySlicer::BodySlicer() : Flow(std::make_unique<ArgumentFlow>()) {}
BodySlicer::~BodySlicer() = default;

void BodySlicer::slice(ASTContext &Ctx, llvm::ArrayRef<Decl *> Scope,
                       bool HadErrors, bool Relocatable,
                       llvm::StringRef Recorded, std::string *Record) {
  // A slicing of the declarations parsed so far, for instantiations made
  // before the end of the unit, is undone: the whole unit's closure decides
  // for those made at its end.
  for (auto &[Fn, Statements] : Replaced)
    undo(Statements);
  Replaced.clear();
  KeptWith.clear();
  Reach = Reaching();
  Summary = BodySlicing();
  Summary.Enabled = true;
  Unit.reset();
  Unsliced.clear();
  this->Ctx = &Ctx;
  this->Relocatable = Relocatable;
  if (HadErrors) {
    Summary.Fallback = Reason(ReasonKind::SliceAfterError);
    return;
  }
  InventoryRecord In, Out;
  const bool Using =
      !Recorded.empty() && InventoryRecord::deserialize(Recorded, In);
  const bool Recording = Record && !Using;
  auto Closed = std::make_unique<UnitClosure>();
  Summary.Fallback =
      closeOver(Ctx, Scope, Relocatable, Reach, *Closed, Using ? &In : nullptr,
                Recording ? &Out : nullptr);
  if (!Summary.Fallback.empty())
    return;
  Unit = std::move(Closed);
  summarize();
  for (const ClosureNode &F : Unit->Nodes)
    if (F.Sliceable && !Unit->Whole.count(F.FnKey))
      Unsliced.try_emplace(F.Node, const_cast<FunctionDecl *>(F.Fn));
  // The calls templates make are read as they are instantiated; the
  // functions that are not templates are read now (those a record holds,
  // where they pass anything on).
  for (const FunctionNode &F : Unit->Functions) {
    if (F.Fn->isTemplated())
      continue;
    const unsigned Before = Flow->learnt();
    Flow->scan(F.Fn);
    if (Recording && F.Fn->isFromASTFile() && Flow->learnt() != Before)
      Out.Input.Flowing.push_back(keyOf(F.Fn));
  }
  for (const FunctionDecl *Fn : Unit->Flowing)
    Flow->scan(Fn);
  if (Recording && !Out.NameTable.empty()) {
    *Record = Out.serialize();
    Summary.HeaderRecord = "made";
  } else if (Unit->FromRecord) {
    Summary.HeaderRecord = "read";
  }
  // What each function names is the bulk of the closure, and slicing one
  // needs none of it: not kept through the instantiations.
  std::vector<FunctionNode>().swap(Unit->Functions);
  std::vector<ClosureNode>().swap(Unit->Nodes);
}

void BodySlicer::beforeInstantiating(const FunctionDecl *FD) {
  if (!Unit)
    return;
  const FunctionDecl *Pattern = FD->getTemplateInstantiationPattern();
  if (!Pattern)
    return;
  const FunctionDecl *Node = nodeOf(Pattern);
  FunctionDecl *Fn = nullptr;
  // The parameters of this specialization that may receive shared memory, as
  // the pattern's (a pack's specializations are the pack).
  Positions Matter = parametersAt(Pattern, Flow->incoming(FD));
  if (auto It = Unsliced.find(keyOf(Node)); It != Unsliced.end()) {
    Fn = It->second;
    Unsliced.erase(It);
    // Recorded with a precompiled header: its declaration with the body.
    for (FunctionDecl *R : Pattern->redecls())
      if (!Fn && R->doesThisDeclarationHaveABody())
        Fn = R;
    if (!Fn)
      return;
  } else if (auto Kept = KeptWith.find(Node);
             Kept != KeptWith.end() && (Matter & ~Kept->second.second)) {
    // Sliced for an earlier specialization, whose parameters received less:
    // sliced again, keeping the uses of both's.
    Fn = Kept->second.first;
    Matter |= Kept->second.second;
    undo(Replaced[Node]);
    KeptWith.erase(Kept);
  } else {
    return;
  }
  unsigned Dropped = 0, MaybeArrays = 0;
  Positions Params = 0;
  if (!sliceFunction(*Ctx, Fn, *Unit, Matter, Reach, Relocatable, Dropped,
                     MaybeArrays, Params, Replaced[Node])) {
    DroppedFrom.erase(Fn->getCanonicalDecl());
    summarize();
    return;
  }
  KeptWith[Node] = {Fn, Matter};
  DroppedFrom[Fn->getCanonicalDecl()] = Dropped;
  // Instantiations made from an earlier slicing keep its parameters too.
  DroppedParams[Fn->getCanonicalDecl()] |= Params;
  summarize();
  // Instantiations made from an earlier slicing keep its count.
  unsigned &Count = Sliced[Fn->getCanonicalDecl()];
  Count = std::max(Count, MaybeArrays);
}

void BodySlicer::afterInstantiating(const FunctionDecl *FD) {
  if (Unit)
    Flow->scan(FD);
}

void BodySlicer::summarize() {
  Summary.Functions = static_cast<unsigned>(DroppedFrom.size());
  Summary.Statements = 0;
  for (const auto &[Fn, Dropped] : DroppedFrom)
    Summary.Statements += Dropped;
}

/// Whether \p T, or a type it is made of, is a class that leads to a default
/// constructor reaching shared memory.
static bool leadsToReachingType(QualType T, const Reaching &Reach,
                                unsigned Depth) {
  if (T.isNull() || Depth > 16)
    return false;
  T = T.getCanonicalType();
  if (const auto *P = T->getAs<PointerType>())
    return leadsToReachingType(P->getPointeeType(), Reach, Depth + 1);
  if (const auto *R = T->getAs<ReferenceType>())
    return leadsToReachingType(R->getPointeeType(), Reach, Depth + 1);
  if (const auto *A = T->getAsArrayTypeUnsafe())
    return leadsToReachingType(A->getElementType(), Reach, Depth + 1);
  const CXXRecordDecl *R = T->getAsCXXRecordDecl();
  if (!R)
    return false;
  if (R->isLambda())
    return Reach.Lambdas;
  if (Reach.Forming.count(keyOf(normalizedType(R))))
    return true;
  if (const auto *S = dyn_cast<ClassTemplateSpecializationDecl>(R))
    for (const TemplateArgument &A : S->getTemplateArgs().asArray())
      if (A.getKind() == TemplateArgument::Type &&
          leadsToReachingType(A.getAsType(), Reach, Depth + 1))
        return true;
  return false;
}

bool BodySlicer::sound(const FunctionDecl *FD) const {
  if ((Reach.Forming.empty() && !Reach.Lambdas) || uninstantiatedCount(FD) < 0)
    return true;
  if (const TemplateArgumentList *Args = FD->getTemplateSpecializationArgs())
    for (const TemplateArgument &A : Args->asArray())
      if (A.getKind() == TemplateArgument::Type &&
          leadsToReachingType(A.getAsType(), Reach, 0))
        return false;
  for (const DeclContext *DC = FD->getDeclContext(); DC; DC = DC->getParent())
    if (const auto *S = dyn_cast<ClassTemplateSpecializationDecl>(DC))
      for (const TemplateArgument &A : S->getTemplateArgs().asArray())
        if (A.getKind() == TemplateArgument::Type &&
            leadsToReachingType(A.getAsType(), Reach, 0))
          return false;
  return true;
}

bool BodySlicer::droppedUses(const FunctionDecl *FD, unsigned Index) const {
  const FunctionDecl *Pattern = FD->getTemplateInstantiationPattern();
  if (!Pattern)
    return false;
  auto It = DroppedParams.find(Pattern->getCanonicalDecl());
  if (It == DroppedParams.end() || !It->second)
    return false;
  // Where the pattern has a parameter pack, the instantiation's positions
  // are not the pattern's: any parameter's dropped uses count.
  if (llvm::any_of(Pattern->parameters(),
                   [](const ParmVarDecl *P) { return P->isParameterPack(); }))
    return true;
  return (It->second & positionOf(Index)) != 0;
}

int BodySlicer::uninstantiatedCount(const FunctionDecl *FD) const {
  const FunctionDecl *Pattern = FD->getTemplateInstantiationPattern();
  if (!Pattern)
    return -1;
  auto It = Sliced.find(Pattern->getCanonicalDecl());
  return It == Sliced.end() ? -1 : static_cast<int>(It->second);
}

unsigned BodySlicer::uninstantiatedStatements(const FunctionDecl *FD) const {
  return std::max(uninstantiatedCount(FD), 0);
}

} // namespace matchers
} // namespace tilefit
