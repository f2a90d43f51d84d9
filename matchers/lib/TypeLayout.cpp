//===- TypeLayout.cpp -----------------------------------------------------===//
#include "tilefit/matchers/TypeLayout.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/Type.h"
#include "clang/AST/TypeLoc.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

using namespace clang;

namespace tilefit {
namespace matchers {
namespace {

std::string printType(const ASTContext &Ctx, QualType T) {
  PrintingPolicy PP(Ctx.getLangOpts());
  PP.SuppressTagKeyword = true;
  PP.SuppressInlineNamespace = true;
  PP.SuppressUnwrittenScope = true;
  return T.getAsString(PP);
}

/// The declaration as written: for a static of a template instantiation, the
/// template's own (its array bounds are still the expressions the programmer
/// wrote).
const VarDecl *writtenDecl(const VarDecl *VD) {
  const auto *FD = dyn_cast<FunctionDecl>(VD->getDeclContext());
  if (!FD)
    return VD;
  const FunctionDecl *Pattern = FD->getTemplateInstantiationPattern();
  if (!Pattern || !Pattern->getBody())
    return VD;
  struct Find : RecursiveASTVisitor<Find> {
    SourceLocation Loc;
    const VarDecl *Found = nullptr;
    bool VisitVarDecl(VarDecl *D) {
      if (D->getLocation() == Loc)
        Found = D;
      return !Found;
    }
  } F;
  F.Loc = VD->getLocation();
  F.TraverseStmt(Pattern->getBody());
  return F.Found ? F.Found : VD;
}

/// The name an array bound is written with, when it is just one name.
std::string boundName(const ASTContext &Ctx, const Expr *Size) {
  if (!Size)
    return "";
  const Expr *E = Size->IgnoreParenImpCasts();
  if (const auto *Subst = dyn_cast<SubstNonTypeTemplateParmExpr>(E))
    E = Subst->getReplacement()->IgnoreParenImpCasts();
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    const ValueDecl *D = DRE->getDecl();
    if (isa<NonTypeTemplateParmDecl>(D) || isa<EnumConstantDecl>(D) ||
        isa<VarDecl>(D))
      return D->getNameAsString();
  }
  // A macro that expands to the whole bound: `float tile[TILE]`.
  SourceLocation B = Size->getBeginLoc(), End = Size->getEndLoc();
  const SourceManager &SM = Ctx.getSourceManager();
  if (B.isMacroID() && End.isMacroID() &&
      SM.getImmediateExpansionRange(B).getBegin() ==
          SM.getImmediateExpansionRange(End).getBegin()) {
    StringRef Name = Lexer::getImmediateMacroName(B, SM, Ctx.getLangOpts());
    if (!Name.empty() &&
        Lexer::isAtStartOfMacroExpansion(B, SM, Ctx.getLangOpts()) &&
        Lexer::isAtEndOfMacroExpansion(End, SM, Ctx.getLangOpts()))
      return Name.str();
  }
  return "";
}

/// The written names of \p VD's array bounds, outermost first, one per extent.
std::vector<std::string> extentNames(const ASTContext &Ctx, const VarDecl *VD,
                                     size_t Rank) {
  std::vector<std::string> Names;
  const VarDecl *Written = writtenDecl(VD);
  if (const TypeSourceInfo *TSI = Written->getTypeSourceInfo()) {
    TypeLoc TL = TSI->getTypeLoc();
    while (true) {
      TL = TL.getUnqualifiedLoc();
      auto ATL = TL.getAs<ArrayTypeLoc>();
      if (!ATL)
        break;
      Names.push_back(boundName(Ctx, ATL.getSizeExpr()));
      TL = ATL.getElementLoc();
    }
  }
  Names.resize(Rank); // bounds hidden in a typedef are not written here
  return Names;
}

} // namespace

void describeVariableLayout(const ASTContext &Ctx, const VarDecl *VD,
                            SharedVar &Out) {
  QualType T = VD->getType();
  Out.Type = printType(Ctx, T.getUnqualifiedType());
  Out.Align = static_cast<uint64_t>(Ctx.getDeclAlign(VD).getQuantity());

  // Shape: array extents from the outermost in.
  QualType Elem = T;
  bool Incomplete = false;
  while (const ArrayType *AT = Ctx.getAsArrayType(Elem)) {
    if (const auto *CAT = dyn_cast<ConstantArrayType>(AT)) {
      Out.Shape.push_back(CAT->getZExtSize());
    } else if (isa<IncompleteArrayType>(AT)) {
      Incomplete = true;
    } else {
      Out.UnknownReason = ReasonKind::ArrayBoundNotConstant;
    }
    Elem = AT->getElementType();
  }
  Out.ElementType = printType(Ctx, Elem.getUnqualifiedType());
  Out.CanonicalElementType =
      printType(Ctx, Elem.getCanonicalType().getUnqualifiedType());

  if (Elem->isIncompleteType()) {
    Out.UnknownReason = {ReasonKind::ElementTypeIncomplete, {Out.ElementType}};
    return;
  }
  if (Elem->isDependentType()) {
    Out.UnknownReason = ReasonKind::ElementTypeDependent;
    return;
  }
  Out.ElementBytes =
      static_cast<uint64_t>(Ctx.getTypeSizeInChars(Elem).getQuantity());

  if (Incomplete) {
    // `extern __shared__ T buf[]`: sized by the launch.
    Out.IsDynamic = VD->hasExternalStorage();
    if (!Out.IsDynamic)
      Out.UnknownReason = ReasonKind::ArrayWithoutBound;
    else
      Out.UnknownReason = ReasonKind::SizedAtLaunch;
    return;
  }
  if (!Out.UnknownReason.empty())
    return;
  if (T->isDependentType()) {
    Out.UnknownReason = ReasonKind::TypeDependent;
    return;
  }
  Out.Bytes = static_cast<uint64_t>(Ctx.getTypeSizeInChars(T).getQuantity());
  Out.ExtentNames = extentNames(Ctx, VD, Out.Shape.size());
}

} // namespace matchers
} // namespace tilefit
