//===- TypeLayout.cpp -----------------------------------------------------===//
#include "tilefit/matchers/TypeLayout.h"

#include "tilefit/matchers/SourcePosition.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/Expr.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/Type.h"
#include "clang/AST/TypeLoc.h"
#include "clang/Basic/CharInfo.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

using namespace clang;

namespace tilefit {
namespace matchers {

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

namespace {

std::string printType(const ASTContext &Ctx, QualType T) {
  PrintingPolicy PP(Ctx.getLangOpts());
  PP.SuppressTagKeyword = true;
  PP.SuppressInlineNamespace = true;
  PP.SuppressUnwrittenScope = true;
  return T.getAsString(PP);
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

/// \p E as a written integer literal, the token replaced in place: spelled in
/// a file (a macro's body counts, where the whole bound is the macro).
WrittenLiteral literalAt(const ASTContext &Ctx, const Expr *E,
                         bool ThroughMacro) {
  const auto *L =
      dyn_cast_or_null<IntegerLiteral>(E ? E->IgnoreParenImpCasts() : nullptr);
  if (!L)
    return {};
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation Loc = L->getLocation();
  if (Loc.isMacroID()) {
    if (!ThroughMacro)
      return {};
    Loc = SM.getSpellingLoc(Loc);
  }
  if (!Loc.isFileID() || SM.isInSystemHeader(Loc))
    return {};
  return {toSourcePos(SM, Loc),
          Lexer::MeasureTokenLength(Loc, SM, Ctx.getLangOpts())};
}

/// Where the literal that decides a bound (\p Size, as written in \p VD's
/// declaration) is written, when changing it is mechanical: a constant's
/// initializer, a macro's body, the argument of an explicit instantiation of
/// the function that declares \p VD.
WrittenLiteral boundLiteral(const ASTContext &Ctx, const VarDecl *VD,
                            const Expr *Size, const std::string &Name) {
  if (!Size || Name.empty())
    return {};
  const Expr *E = Size->IgnoreParenImpCasts();
  if (isa<IntegerLiteral>(E)) // `float tile[TILE]`, TILE a macro
    return literalAt(Ctx, E, /*ThroughMacro=*/true);
  const auto *DRE = dyn_cast<DeclRefExpr>(E);
  if (!DRE)
    return {};
  if (const auto *C = dyn_cast<VarDecl>(DRE->getDecl()))
    return literalAt(Ctx, C->getInit(), /*ThroughMacro=*/false);
  const auto *P = dyn_cast<NonTypeTemplateParmDecl>(DRE->getDecl());
  const auto *FD = dyn_cast<FunctionDecl>(VD->getDeclContext());
  if (!P || !FD ||
      FD->getTemplateSpecializationKind() !=
          TSK_ExplicitInstantiationDefinition)
    return {};
  const FunctionTemplateDecl *T = FD->getPrimaryTemplate();
  if (!T || P->getDepth() != T->getTemplateParameters()->getDepth())
    return {};
  // Clang keeps no written arguments for an explicit instantiation: they are
  // read from the tokens after its name, `k<64, 4>`, at the outer level.
  const SourceManager &SM = Ctx.getSourceManager();
  const LangOptions &LO = Ctx.getLangOpts();
  SourceLocation At = FD->getPointOfInstantiation();
  if (At.isInvalid() || !At.isFileID())
    return {};
  std::optional<Token> Tok = Lexer::findNextToken(At, SM, LO);
  if (!Tok || !Tok->is(tok::less))
    return {};
  unsigned Depth = 0, Arg = 0;
  std::vector<Token> Written; // the tokens of argument P->getIndex()
  for (unsigned Steps = 0; Steps < 4096; ++Steps) {
    Tok = Lexer::findNextToken(Tok->getLocation(), SM, LO);
    if (!Tok || Tok->is(tok::eof) || Tok->getLocation().isMacroID())
      return {};
    if (Tok->isOneOf(tok::less, tok::l_paren, tok::l_square, tok::l_brace))
      ++Depth;
    else if (Depth == 0 && Tok->isOneOf(tok::greater, tok::greatergreater))
      break;
    else if (Tok->isOneOf(tok::greater, tok::r_paren, tok::r_square,
                          tok::r_brace))
      --Depth;
    else if (Depth == 0 && Tok->is(tok::comma)) {
      ++Arg;
      continue;
    }
    if (Arg == P->getIndex())
      Written.push_back(*Tok);
  }
  if (Written.size() != 1 || !Written[0].is(tok::numeric_constant) ||
      SM.isInSystemHeader(Written[0].getLocation()))
    return {};
  return {toSourcePos(SM, Written[0].getLocation()), Written[0].getLength()};
}

/// Whether \p Name is written as a whole word in \p Bound's text.
bool mentions(const ASTContext &Ctx, const Expr *Bound, StringRef Name) {
  if (!Bound)
    return false;
  const SourceManager &SM = Ctx.getSourceManager();
  const CharSourceRange R = SM.getExpansionRange(Bound->getSourceRange());
  const StringRef Text = Lexer::getSourceText(R, SM, Ctx.getLangOpts());
  auto Word = [](char C) { return clang::isAsciiIdentifierContinue(C); };
  for (size_t At = Text.find(Name); At != StringRef::npos;
       At = Text.find(Name, At + 1))
    if ((At == 0 || !Word(Text[At - 1])) &&
        (At + Name.size() == Text.size() || !Word(Text[At + Name.size()])))
      return true;
  return false;
}

/// The written names of \p VD's array bounds, outermost first, one per extent,
/// and where the literals that decide them are written (boundLiteral), for a
/// name no other bound of \p VD is written with (changing it would change
/// those too).
void extentNames(const ASTContext &Ctx, const VarDecl *VD, size_t Rank,
                 SharedVar &Out) {
  Out.ExtentNames.clear();
  Out.ExtentLiterals.clear();
  std::vector<const Expr *> Bounds;
  const VarDecl *Written = writtenDecl(VD);
  if (const TypeSourceInfo *TSI = Written->getTypeSourceInfo()) {
    TypeLoc TL = TSI->getTypeLoc();
    while (true) {
      TL = TL.getUnqualifiedLoc();
      auto ATL = TL.getAs<ArrayTypeLoc>();
      if (!ATL)
        break;
      Bounds.push_back(ATL.getSizeExpr());
      Out.ExtentNames.push_back(boundName(Ctx, ATL.getSizeExpr()));
      TL = ATL.getElementLoc();
    }
  }
  for (size_t D = 0; D < Bounds.size(); ++D) {
    const std::string &Name = Out.ExtentNames[D];
    bool Alone = !Name.empty();
    for (size_t O = 0; O < Bounds.size() && Alone; ++O)
      Alone = O == D || !mentions(Ctx, Bounds[O], Name);
    Out.ExtentLiterals.push_back(Alone ? boundLiteral(Ctx, VD, Bounds[D], Name)
                                       : WrittenLiteral());
  }
  // Bounds hidden in a typedef are not written here.
  Out.ExtentNames.resize(Rank);
  Out.ExtentLiterals.resize(Rank);
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
  extentNames(Ctx, VD, Out.Shape.size(), Out);
}

} // namespace matchers
} // namespace tilefit
