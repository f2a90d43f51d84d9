//===- ParseErrors.cpp ----------------------------------------------------===//
#include "ParseErrorReach.h"

#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/Basic/SourceManager.h"

#include <algorithm>

namespace tilefit {
namespace matchers {

using namespace clang;

ErrorReach::ErrorReach(const SourceManager &SM,
                       llvm::ArrayRef<ParseError> Errors)
    : SM(SM), Errors(Errors) {
  for (size_t I = 0; I < Errors.size(); ++I) {
    if (Errors[I].Loc.isInvalid())
      continue;
    auto [FID, Offset] = SM.getDecomposedExpansionLoc(Errors[I].Loc);
    if (FID.isValid())
      ByFile[FID].push_back({Offset, I});
  }
  for (auto &[FID, List] : ByFile)
    std::sort(List.begin(), List.end());
}

/// The declaration whose text an instantiation was made from: the template's
/// own.
static const Decl *patternOf(const Decl *D) {
  if (const auto *FD = dyn_cast<FunctionDecl>(D)) {
    if (const FunctionDecl *P = FD->getTemplateInstantiationPattern())
      return P;
    return FD;
  }
  if (const auto *RD = dyn_cast<CXXRecordDecl>(D)) {
    if (const CXXRecordDecl *P = RD->getTemplateInstantiationPattern())
      return P->getDefinition() ? P->getDefinition() : P;
    return RD->getDefinition() ? RD->getDefinition() : RD;
  }
  return D;
}

const llvm::SmallVector<size_t, 2> &ErrorReach::errorsIn(const Decl *D) {
  auto [It, New] = Inside.try_emplace(D);
  if (!New || ByFile.empty())
    return It->second;
  const Decl *P = patternOf(D);
  CharSourceRange R = SM.getExpansionRange(P->getSourceRange());
  if (R.getBegin().isInvalid() || R.getEnd().isInvalid())
    return It->second;
  auto [BeginFile, Begin] = SM.getDecomposedLoc(R.getBegin());
  auto [EndFile, End] = SM.getDecomposedLoc(R.getEnd());
  if (BeginFile != EndFile)
    return It->second;
  auto F = ByFile.find(BeginFile);
  if (F == ByFile.end())
    return It->second;
  const auto &List = F->second;
  auto First = std::lower_bound(List.begin(), List.end(),
                                std::make_pair(Begin, size_t(0)));
  for (auto E = First; E != List.end() && E->first <= End; ++E)
    It->second.push_back(E->second);
  return It->second;
}

std::optional<size_t>
ErrorReach::touching(llvm::ArrayRef<const Decl *> Uses,
                     const llvm::SmallPtrSetImpl<const Decl *> &Ids) {
  // After a fatal error no error is reported: whatever ends after it may hold
  // one.
  for (const ParseError &E : Errors) {
    if (!E.Fatal || E.Loc.isInvalid())
      continue;
    const SourceLocation Fatal = SM.getExpansionLoc(E.Loc);
    for (const Decl *D : Uses) {
      SourceLocation End = SM.getExpansionLoc(patternOf(D)->getEndLoc());
      if (End.isValid() && SM.isBeforeInTranslationUnit(Fatal, End))
        return E.Diagnostic;
    }
  }
  std::optional<size_t> First;
  for (const Decl *D : Uses)
    for (size_t I : errorsIn(D)) {
      const ParseError &E = Errors[I];
      // An error made while instantiating other specializations is theirs.
      bool Ours = E.Instantiating.empty() ||
                  std::any_of(E.Instantiating.begin(), E.Instantiating.end(),
                              [&](const Decl *X) { return Ids.count(X); });
      if (Ours && (!First || E.Diagnostic < Errors[*First].Diagnostic))
        First = I;
    }
  if (!First)
    return std::nullopt;
  return Errors[*First].Diagnostic;
}

std::optional<size_t> ErrorReach::firstError() const {
  std::optional<size_t> First;
  for (const ParseError &E : Errors)
    if (!First || E.Diagnostic < *First)
      First = E.Diagnostic;
  return First;
}

void ErrorReach::addRecordTypes(QualType T,
                                llvm::SmallVectorImpl<const Decl *> &Out,
                                llvm::SmallPtrSetImpl<const Decl *> &Seen) {
  const Type *Base = T->getBaseElementTypeUnsafe();
  const CXXRecordDecl *RD = Base ? Base->getAsCXXRecordDecl() : nullptr;
  if (!RD)
    return;
  if (const CXXRecordDecl *Def = RD->getDefinition())
    RD = Def;
  if (!Seen.insert(RD->getCanonicalDecl()).second)
    return;
  Out.push_back(RD);
  if (!RD->hasDefinition())
    return;
  for (const CXXBaseSpecifier &B : RD->bases())
    addRecordTypes(B.getType(), Out, Seen);
  for (const FieldDecl *F : RD->fields())
    addRecordTypes(F->getType(), Out, Seen);
}

} // namespace matchers
} // namespace tilefit
