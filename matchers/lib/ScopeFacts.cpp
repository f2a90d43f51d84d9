//===- ScopeFacts.cpp -----------------------------------------------------===//
#include "tilefit/matchers/ScopeFacts.h"

#include "tilefit/matchers/EmissionWalk.h"
#include "tilefit/matchers/KernelNames.h"
#include "tilefit/matchers/LaunchSites.h"
#include "tilefit/matchers/SourcePosition.h"
#include "tilefit/matchers/TypeLayout.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/Stmt.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>

using namespace clang;
using namespace clang::ast_matchers;

namespace tilefit {
namespace matchers {
namespace {

/// A declaration inside an uninstantiated template: never emitted.
AST_MATCHER(Decl, isTemplatePattern) { return Node.isTemplated(); }

const FunctionDecl *enclosingFunction(const Decl *D) {
  for (const DeclContext *DC = D->getDeclContext(); DC; DC = DC->getParent())
    if (const auto *FD = dyn_cast<FunctionDecl>(DC))
      return FD;
  return nullptr;
}

/// `cute::TMEM::Allocator1Sm::allocate`: namespaces and classes, inline
/// namespaces (CCCL's versioned ones) left out, template arguments left out; ""
/// inside a function.
std::string plainQualifiedName(const NamedDecl *D) {
  std::vector<std::string> Parts{D->getNameAsString()};
  for (const DeclContext *DC = D->getDeclContext();
       DC && !isa<TranslationUnitDecl>(DC); DC = DC->getParent()) {
    if (const auto *NS = dyn_cast<NamespaceDecl>(DC)) {
      if (!NS->isInline())
        Parts.push_back(NS->getNameAsString());
    } else if (const auto *RD = dyn_cast<RecordDecl>(DC)) {
      Parts.push_back(RD->getNameAsString());
    } else if (!isa<LinkageSpecDecl>(DC)) {
      return "";
    }
  }
  std::reverse(Parts.begin(), Parts.end());
  return llvm::join(Parts, "::");
}

/// The allocators modelled by their call: the argument that holds the column
/// count, and the CTA group (0: read from the template argument).
struct ModelledAllocator {
  const char *Name;
  unsigned ColumnsArg;
  unsigned CtaGroup;
};
const ModelledAllocator Allocators[] = {
    {"cute::TMEM::Allocator1Sm::allocate", 0, 1},
    {"cute::TMEM::Allocator2Sm::allocate", 0, 2},
    {"cuda::ptx::tcgen05_alloc", 2, 0},
};

const ModelledAllocator *modelledAllocator(const FunctionDecl *FD) {
  if (!FD || !FD->getIdentifier())
    return nullptr;
  // A cheap test first: every modelled name ends in one of these.
  StringRef Last = FD->getName();
  if (Last != "allocate" && Last != "tcgen05_alloc")
    return nullptr;
  std::string Name = plainQualifiedName(FD);
  for (const ModelledAllocator &A : Allocators)
    if (Name == A.Name)
      return &A;
  return nullptr;
}

/// Whether \p T is an array or a class holding one (fields and bases, any
/// depth).
bool holdsArray(QualType T, unsigned Depth) {
  if (Depth > 16 || T.isNull())
    return false;
  T = T.getCanonicalType();
  if (T->isArrayType())
    return true;
  const RecordDecl *RD = T->getAsRecordDecl();
  if (!RD || !RD->getDefinition())
    return false;
  RD = RD->getDefinition();
  if (const auto *CRD = dyn_cast<CXXRecordDecl>(RD))
    for (const CXXBaseSpecifier &B : CRD->bases())
      if (holdsArray(B.getType(), Depth + 1))
        return true;
  for (const FieldDecl *F : RD->fields())
    if (holdsArray(F->getType(), Depth + 1))
      return true;
  return false;
}

/// The bytes of the arrays \p T holds: all of it for an array (of numbers,
/// vectors, `__half`s or fragments alike), the arrays among the fields and
/// bases of a class (any depth), none for a scalar. A class's other fields (an
/// iterator's pointers, strides and counters) are what ptxas folds, keeps in a
/// few registers or drops; the arrays are the register tiles. Unknown for a
/// class Clang cannot lay out.
std::optional<uint64_t> arrayBytesIn(const ASTContext &Ctx, QualType T,
                                     unsigned Depth) {
  if (Depth > 16 || T.isNull() || T->isDependentType() || T->isIncompleteType())
    return std::nullopt;
  T = T.getCanonicalType();
  if (isa<ConstantArrayType>(T.getTypePtr()))
    return Ctx.getTypeSizeInChars(T).getQuantity();
  const RecordDecl *RD = T->getAsRecordDecl();
  if (!RD)
    return 0;
  if (!RD->getDefinition() || RD->isInvalidDecl())
    return std::nullopt;
  RD = RD->getDefinition();
  uint64_t Sum = 0;
  if (const auto *CRD = dyn_cast<CXXRecordDecl>(RD))
    for (const CXXBaseSpecifier &B : CRD->bases()) {
      auto In = arrayBytesIn(Ctx, B.getType(), Depth + 1);
      if (!In)
        return std::nullopt;
      Sum += *In;
    }
  for (const FieldDecl *F : RD->fields()) {
    if (F->getType()->isReferenceType())
      continue;
    auto In = arrayBytesIn(Ctx, F->getType(), Depth + 1);
    if (!In)
      return std::nullopt;
    Sum += *In;
  }
  return Sum;
}

/// Reads a PTX integer immediate: decimal, 0x hex, 0b binary, 0 octal, optional
/// U suffix.
std::optional<uint64_t> ptxInteger(StringRef Text) {
  Text = Text.trim();
  if (Text.ends_with("U") || Text.ends_with("u"))
    Text = Text.drop_back();
  uint64_t V = 0;
  if (Text.starts_with_insensitive("0b"))
    return Text.drop_front(2).getAsInteger(2, V) ? std::nullopt
                                                 : std::optional<uint64_t>(V);
  if (Text.getAsInteger(0, V))
    return std::nullopt;
  return V;
}

} // namespace

std::vector<SharedVar>
describeVariables(ASTContext &Ctx, const std::vector<const VarDecl *> &Vars) {
  const SourceManager &SM = Ctx.getSourceManager();
  auto Before = [&](SourceLocation A, SourceLocation B) {
    return SM.isBeforeInTranslationUnit(SM.getExpansionLoc(A),
                                        SM.getExpansionLoc(B));
  };

  // Declaration order: a rank per distinct declaration position.
  std::vector<const VarDecl *> ByPos = Vars;
  std::stable_sort(ByPos.begin(), ByPos.end(),
                   [&](const VarDecl *A, const VarDecl *B) {
                     return Before(A->getLocation(), B->getLocation());
                   });
  llvm::DenseMap<const VarDecl *, uint64_t> DeclOrder;
  for (size_t I = 0; I < ByPos.size(); ++I) {
    bool Same =
        I > 0 && !Before(ByPos[I - 1]->getLocation(), ByPos[I]->getLocation());
    DeclOrder[ByPos[I]] = Same ? DeclOrder[ByPos[I - 1]] : I;
  }

  // Namespaces in order of first opening.
  std::vector<const NamespaceDecl *> Namespaces;
  for (const VarDecl *VD : Vars)
    for (const DeclContext *DC = VD->getDeclContext(); DC; DC = DC->getParent())
      if (const auto *ND = dyn_cast<NamespaceDecl>(DC))
        Namespaces.push_back(ND->getCanonicalDecl());
  std::sort(Namespaces.begin(), Namespaces.end());
  Namespaces.erase(std::unique(Namespaces.begin(), Namespaces.end()),
                   Namespaces.end());
  std::stable_sort(Namespaces.begin(), Namespaces.end(),
                   [&](const NamespaceDecl *A, const NamespaceDecl *B) {
                     return Before(A->getLocation(), B->getLocation());
                   });
  llvm::DenseMap<const NamespaceDecl *, unsigned> NamespaceOrdinal;
  for (size_t I = 0; I < Namespaces.size(); ++I)
    NamespaceOrdinal[Namespaces[I]] = static_cast<unsigned>(I);

  std::vector<SharedVar> Out;
  for (const VarDecl *VD : Vars) {
    SharedVar V;
    V.Name = VD->getNameAsString();
    const FunctionDecl *Fn = enclosingFunction(VD);
    if (Fn)
      V.Function = functionName(Fn);
    V.QualifiedName =
        Fn ? V.Function + "::" + V.Name : VD->getQualifiedNameAsString();
    V.Loc = toSourcePos(SM, VD->getLocation());
    describeVariableLayout(Ctx, VD, V);

    EmissionFacts &E = V.Emission;
    if (!Fn) {
      std::vector<unsigned> Chain;
      for (const DeclContext *DC = VD->getDeclContext(); DC;
           DC = DC->getParent())
        if (const auto *ND = dyn_cast<NamespaceDecl>(DC))
          Chain.push_back(NamespaceOrdinal[ND->getCanonicalDecl()]);
      E.Namespaces.assign(Chain.rbegin(), Chain.rend());
    }
    E.DeclOrder = DeclOrder[VD];
    Out.push_back(std::move(V));
  }
  return Out;
}

void ConstantCollector::registerMatchers(MatchFinder &Finder) {
  // Every variable with the `__constant__` attribute that is not a template
  // pattern; run() keeps the written ones that are defined here.
  Finder.addMatcher(
      varDecl(hasAttr(attr::CUDAConstant), unless(isTemplatePattern()))
          .bind("constant"),
      this);
}

void ConstantCollector::run(const MatchFinder::MatchResult &Result) {
  const auto *VD = Result.Nodes.getNodeAs<VarDecl>("constant");
  if (!VD)
    return;
  const VarDecl *Def = VD->getDefinition();
  if (!Def)
    return; // `extern __constant__`: defined in another unit (-rdc)
  // Clang marks `constexpr` variables `__constant__` itself in device code (an
  // implicit attribute); nvcc folds their values and gives them no storage.
  bool Written = false;
  for (const VarDecl *R : Def->redecls())
    for (const auto *A : R->specific_attrs<CUDAConstantAttr>())
      Written |= !A->isImplicit();
  if (Written && Seen.insert(Def->getCanonicalDecl()).second)
    Vars.push_back(Def);
}

void ConstantCollector::finish(ASTContext &Ctx,
                               const InstantiationRecorder &Instantiations,
                               TranslationUnitFacts &Out) {
  Out.ConstantVars = describeVariables(Ctx, Vars);
  if (Vars.empty())
    return;
  llvm::DenseMap<const VarDecl *, size_t> Index;
  for (size_t I = 0; I < Vars.size(); ++I)
    Index[Vars[I]->getCanonicalDecl()] = I;
  Out.ConstantEmission = buildEmissionProgram(Ctx, Index, Instantiations);
}

bool isPerThreadArray(const ASTContext &, const VarDecl *VD) {
  if (isa<ParmVarDecl>(VD) || !VD->hasLocalStorage() ||
      VD->hasAttr<CUDASharedAttr>())
    return false;
  QualType T = VD->getType();
  if (T.isNull() || T->isReferenceType() || T->isDependentType())
    return false;
  return holdsArray(T, 0);
}

SharedVar describeLocalArray(const ASTContext &Ctx, const VarDecl *VD) {
  SharedVar V;
  V.Name = VD->getNameAsString();
  if (const FunctionDecl *Fn = enclosingFunction(VD))
    V.Function = functionName(Fn);
  V.QualifiedName = V.Function.empty() ? V.Name : V.Function + "::" + V.Name;
  V.Loc = toSourcePos(Ctx.getSourceManager(), VD->getLocation());
  describeVariableLayout(Ctx, VD, V);
  // An object that holds arrays (a fragment, an accumulator, a CuTe tensor)
  // counts for the arrays it holds.
  if (V.Bytes && Ctx.getBaseElementType(VD->getType())->getAsRecordDecl())
    V.Bytes = arrayBytesIn(Ctx, VD->getType(), 0);
  return V;
}

bool isTmemAllocator(const FunctionDecl *FD) {
  return modelledAllocator(FD) != nullptr;
}

void tmemAllocationsInAsm(ASTContext &Ctx, const FunctionDecl *Fn,
                          const GCCAsmStmt *S,
                          std::vector<TmemAllocation> &Out) {
  const std::string Text = S->getAsmString()->getString().str();
  static const std::string Mnemonic = "tcgen05.alloc";
  for (size_t Pos = Text.find(Mnemonic); Pos != std::string::npos;
       Pos = Text.find(Mnemonic, Pos + 1)) {
    const size_t After = Pos + Mnemonic.size();
    if (After < Text.size() && Text[After] != '.' &&
        !isspace(static_cast<unsigned char>(Text[After])))
      continue; // another instruction whose name starts the same way
    const size_t NameEnd =
        std::min(Text.find_first_of(" \t\r\n", Pos), Text.size());
    const size_t End = std::min(Text.find(';', NameEnd), Text.size());
    StringRef Name = StringRef(Text).slice(Pos, NameEnd);
    llvm::SmallVector<StringRef, 4> Operands;
    StringRef(Text).slice(NameEnd, End).split(Operands, ',');

    TmemAllocation A;
    A.Loc = toSourcePos(Ctx.getSourceManager(), S->getAsmLoc());
    A.Form = "tcgen05.alloc";
    if (Fn)
      A.Function = functionName(Fn);
    A.CtaGroup = Name.contains(".cta_group::2") ? 2 : 1;
    if (Operands.size() < 2) {
      A.UnknownReason = ReasonKind::PtxNoColumnOperand;
      Out.push_back(std::move(A));
      continue;
    }
    StringRef Op = Operands[1].trim();
    if (!Op.starts_with("%")) {
      if (auto V = ptxInteger(Op))
        A.Columns = *V;
      else
        A.UnknownReason = {ReasonKind::PtxColumnNotInteger, {Op.str()}};
    } else if (Op.starts_with("%%")) {
      A.UnknownReason = {ReasonKind::PtxColumnRegister,
                         {Op.drop_front().str()}};
    } else {
      int Index = -1;
      StringRef Ref = Op.drop_front();
      if (Ref.consume_front("[") && Ref.consume_back("]"))
        Index = S->getNamedOperand(Ref);
      else if (unsigned N; !Ref.getAsInteger(10, N))
        Index = static_cast<int>(N);
      const int Outputs = static_cast<int>(S->getNumOutputs());
      if (Index < 0 || Index >= Outputs + static_cast<int>(S->getNumInputs())) {
        A.UnknownReason = {ReasonKind::PtxColumnNoOperand, {Op.str()}};
      } else if (Index < Outputs) {
        A.UnknownReason = ReasonKind::PtxColumnOutput;
      } else {
        Reason Why;
        if (auto V = evaluateConstant(Ctx, Fn, S->getInputExpr(Index - Outputs),
                                      Why))
          A.Columns = *V;
        else
          A.UnknownReason =
              Reason::resting(ReasonKind::ColumnsNotConstant, std::move(Why));
      }
    }
    Out.push_back(std::move(A));
  }
}

std::optional<TmemAllocation>
tmemAllocationCall(ASTContext &Ctx, const FunctionDecl *Fn, const CallExpr *E) {
  const FunctionDecl *Callee = E->getDirectCallee();
  const ModelledAllocator *M = modelledAllocator(Callee);
  if (!M)
    return std::nullopt;
  TmemAllocation A;
  A.Loc = toSourcePos(Ctx.getSourceManager(), E->getBeginLoc());
  A.Form = M->Name;
  if (Fn)
    A.Function = functionName(Fn);
  A.CtaGroup = M->CtaGroup;
  if (A.CtaGroup == 0) {
    // cuda::ptx::tcgen05_alloc<dot_cta_group>: cta_group_1 or cta_group_2 (0 or
    // 1).
    A.CtaGroup = 1;
    if (const TemplateArgumentList *Args =
            Callee->getTemplateSpecializationArgs())
      if (Args->size() > 0 &&
          Args->get(0).getKind() == TemplateArgument::Integral)
        A.CtaGroup = Args->get(0).getAsIntegral().getZExtValue() == 1 ? 2 : 1;
  }
  if (E->getNumArgs() <= M->ColumnsArg) {
    A.UnknownReason = ReasonKind::CallNoColumnArgument;
    return A;
  }
  Reason Why;
  if (auto V = evaluateConstant(Ctx, Fn, E->getArg(M->ColumnsArg), Why))
    A.Columns = *V;
  else
    A.UnknownReason =
        Reason::resting(ReasonKind::ColumnsNotConstant, std::move(Why));
  return A;
}

} // namespace matchers
} // namespace tilefit
