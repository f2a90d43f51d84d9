//===- WrittenSource.cpp - Where a quick fix may edit the source ----------===//
#include "tilefit/matchers/WrittenSource.h"

#include "tilefit/matchers/SourcePosition.h"
#include "tilefit/matchers/TypeLayout.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/Stmt.h"
#include "clang/AST/TypeLoc.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

using namespace clang;

namespace tilefit {
namespace matchers {
namespace {

/// The text of the tokens from \p B to \p E, both in a file, not a macro;
/// "" otherwise.
std::string fileText(const ASTContext &Ctx, SourceLocation B,
                     SourceLocation E) {
  const SourceManager &SM = Ctx.getSourceManager();
  if (B.isInvalid() || E.isInvalid() || B.isMacroID() || E.isMacroID() ||
      SM.getFileID(B) != SM.getFileID(E) || SM.isInSystemHeader(B))
    return "";
  return Lexer::getSourceText(CharSourceRange::getTokenRange(B, E), SM,
                              Ctx.getLangOpts())
      .str();
}

/// The whitespace that begins the line of \p Loc (a file location), where only
/// whitespace is before \p Loc on its line; nullopt otherwise.
std::optional<std::string> indentBefore(const SourceManager &SM,
                                        SourceLocation Loc) {
  bool Invalid = false;
  const StringRef Buffer = SM.getBufferData(SM.getFileID(Loc), &Invalid);
  if (Invalid)
    return std::nullopt;
  const unsigned Offset = SM.getFileOffset(Loc);
  unsigned Start = Offset;
  while (Start > 0 && Buffer[Start - 1] != '\n')
    --Start;
  const StringRef Indent = Buffer.slice(Start, Offset);
  if (Indent.find_first_not_of(" \t") != StringRef::npos)
    return std::nullopt;
  return Indent.str();
}

/// \p Begin to the end of the token at \p End, on one line of one file.
WrittenLiteral spanOf(const ASTContext &Ctx, SourceLocation Begin,
                      SourceLocation End) {
  const SourceManager &SM = Ctx.getSourceManager();
  const SourceLocation After =
      Lexer::getLocForEndOfToken(End, 0, SM, Ctx.getLangOpts());
  if (After.isInvalid() || SM.getFileID(Begin) != SM.getFileID(After) ||
      SM.getSpellingLineNumber(Begin) != SM.getSpellingLineNumber(After))
    return {};
  return {toSourcePos(SM, Begin),
          SM.getFileOffset(After) - SM.getFileOffset(Begin)};
}

} // namespace

WrittenDeclaration writtenDeclaration(ASTContext &Ctx, const VarDecl *VD) {
  const SourceManager &SM = Ctx.getSourceManager();
  const VarDecl *Written = writtenDecl(VD);
  const auto *Fn = dyn_cast<FunctionDecl>(Written->getDeclContext());
  const TypeSourceInfo *TSI = Written->getTypeSourceInfo();
  if (!Fn || !Fn->getBody() || !TSI || Written->hasInit() ||
      Written->hasAttr<AlignedAttr>() || Written->getType().hasQualifiers())
    return {};
  // Its statement, declaring it alone.
  struct Find : RecursiveASTVisitor<Find> {
    const VarDecl *Var = nullptr;
    const DeclStmt *Found = nullptr;
    bool VisitDeclStmt(DeclStmt *S) {
      if (S->isSingleDecl() && S->getSingleDecl() == Var)
        Found = S;
      return !Found;
    }
  } F;
  F.Var = Written;
  F.TraverseStmt(Fn->getBody());
  if (!F.Found)
    return {};
  // `__shared__` is a macro: the statement begins where it expands.
  const SourceLocation Begin = SM.getExpansionLoc(F.Found->getBeginLoc());
  // The bounds, outermost first, and the element type inside them.
  TypeLoc TL = TSI->getTypeLoc();
  ArrayTypeLoc Outer, Inner;
  while (auto ATL = TL.getAs<ArrayTypeLoc>()) {
    if (!Outer)
      Outer = ATL;
    Inner = ATL;
    TL = ATL.getElementLoc();
  }
  if (!Outer || TL.getAs<QualifiedTypeLoc>() ||
      TL.getType().hasLocalQualifiers())
    return {};
  WrittenDeclaration W;
  W.Extents = fileText(Ctx, Outer.getLBracketLoc(), Inner.getRBracketLoc());
  const SourceRange ElementRange = TL.getSourceRange();
  const CharSourceRange ElementText =
      SM.getExpansionRange(CharSourceRange::getTokenRange(ElementRange));
  W.Element = Lexer::getSourceText(ElementText, SM, Ctx.getLangOpts()).str();
  const std::optional<std::string> Indent = indentBefore(SM, Begin);
  if (W.Extents.empty() || W.Element.empty() || !Indent ||
      Inner.getRBracketLoc() != Written->getEndLoc())
    return {};
  W.Indent = *Indent;
  W.Span = spanOf(Ctx, Begin, Written->getEndLoc());
  return W.Span.valid() ? W : WrittenDeclaration();
}

WrittenLaunch writtenLaunch(ASTContext &Ctx, const CUDAKernelCallExpr *Call,
                            const FunctionDecl *Fn) {
  const SourceManager &SM = Ctx.getSourceManager();
  const CallExpr *Config = Call->getConfig();
  if (!Fn || Fn->isTemplateInstantiation() || !Config ||
      Config->getNumArgs() < 2 || Call->getBeginLoc().isMacroID() ||
      SM.isInSystemHeader(Call->getBeginLoc()))
    return {};
  // A statement of its own in a block: the opt-in goes before it.
  const Stmt *Child = Call;
  while (true) {
    DynTypedNodeList Parents = Ctx.getParents(*Child);
    const Stmt *Parent = Parents.size() == 1 ? Parents[0].get<Stmt>() : nullptr;
    if (!Parent)
      return {};
    if (isa<CompoundStmt>(Parent))
      break;
    if (!isa<ExprWithCleanups>(Parent))
      return {};
    Child = Parent;
  }
  WrittenLaunch W;
  const std::optional<std::string> Indent =
      indentBefore(SM, Call->getBeginLoc());
  W.Kernel = fileText(Ctx, Call->getCallee()->getBeginLoc(),
                      Call->getCallee()->getEndLoc());
  if (!Indent || W.Kernel.empty())
    return {};
  W.Indent = *Indent;
  W.Statement = toSourcePos(SM, Call->getBeginLoc());
  const Expr *Bytes = Config->getNumArgs() > 2 ? Config->getArg(2) : nullptr;
  if (!Bytes || isa<CXXDefaultArgExpr>(Bytes)) {
    // `>>>`, where ", N" goes.
    if (Config->getRParenLoc().isMacroID())
      return {};
    W.Bytes = {toSourcePos(SM, Config->getRParenLoc()), 0};
    return W;
  }
  const auto *Zero = dyn_cast<IntegerLiteral>(Bytes->IgnoreParenImpCasts());
  if (!Zero || Zero->getValue() != 0 || Zero->getBeginLoc().isMacroID())
    return {};
  W.Bytes = spanOf(Ctx, Zero->getBeginLoc(), Zero->getEndLoc());
  return W.Bytes.valid() ? W : WrittenLaunch();
}

} // namespace matchers
} // namespace tilefit
