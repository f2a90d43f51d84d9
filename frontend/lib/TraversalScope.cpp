//===- TraversalScope.cpp - What a parse over a precompiled header visits -===//
#include "TraversalScope.h"

#include "tilefit/frontend/HeaderPch.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/ExternalASTSource.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/Support/Path.h"

namespace tilefit {
namespace frontend {

namespace {
/// The record's first line; one byte of kind and one of choice per declaration
/// follow.
constexpr llvm::StringLiteral Magic = "tilefit-prefix-scope/1\n";
} // namespace

bool includedFrom(const clang::SourceManager &SM, clang::SourceLocation Loc,
                  llvm::function_ref<bool(llvm::StringRef)> IsRoot,
                  llvm::DenseMap<clang::FileID, bool> &Known) {
  if (Loc.isInvalid())
    return false;
  clang::FileID First = SM.getFileID(SM.getExpansionLoc(Loc));
  if (auto It = Known.find(First); It != Known.end())
    return It->second;
  bool Result = false;
  for (clang::FileID F = First; F.isValid();) {
    if (auto Entry = SM.getFileEntryRefForID(F);
        Entry && IsRoot(Entry->getName())) {
      Result = true;
      break;
    }
    clang::SourceLocation Included = SM.getIncludeLoc(F);
    if (Included.isInvalid())
      break;
    F = SM.getFileID(SM.getExpansionLoc(Included));
  }
  Known[First] = Result;
  return Result;
}

bool fromRuntimeHeaders(const clang::SourceManager &SM,
                        clang::SourceLocation Loc,
                        llvm::DenseMap<clang::FileID, bool> &Known) {
  return includedFrom(
      SM, Loc,
      [](llvm::StringRef Name) {
        return llvm::sys::path::filename(Name) == CudaRuntimeWrapper;
      },
      Known);
}

std::string recordPrefixScope(clang::ASTContext &Ctx) {
  std::string Out(Magic);
  const clang::SourceManager &SM = Ctx.getSourceManager();
  llvm::DenseMap<clang::FileID, bool> Runtime;
  // The precompiled header lists the unit's top-level declarations in this
  // order (those read from another AST file aside: none here, the prefix is
  // built from source).
  for (const clang::Decl *D : Ctx.getTranslationUnitDecl()->noload_decls()) {
    if (D->isFromASTFile())
      continue;
    static_assert(clang::Decl::lastDecl < 256, "a kind is one byte");
    Out += static_cast<char>(D->getKind());
    Out += fromRuntimeHeaders(SM, D->getLocation(), Runtime) ? '0' : '1';
  }
  return Out;
}

bool prefixTraversalScope(clang::ASTContext &Ctx, llvm::StringRef Recorded,
                          std::vector<clang::Decl *> &Out) {
  clang::TranslationUnitDecl *TU = Ctx.getTranslationUnitDecl();
  clang::ExternalASTSource *Source = Ctx.getExternalSource();
  if (!Source || !TU->hasExternalLexicalStorage() ||
      !Recorded.consume_front(Magic) || Recorded.size() % 2 != 0)
    return false;
  // The reader hands each top-level declaration's kind to the filter, in the
  // header's order, and reads only those it keeps. Every kind must be the one
  // recorded, and every declaration seen once, or the record is not this
  // header's.
  size_t Next = 0;
  bool Fits = true;
  llvm::SmallVector<clang::Decl *, 0> Prefix;
  Source->FindExternalLexicalDecls(
      TU,
      [&](clang::Decl::Kind K) {
        if (!Fits || 2 * Next >= Recorded.size() ||
            static_cast<unsigned char>(Recorded[2 * Next]) !=
                static_cast<unsigned>(K)) {
          Fits = false;
          return false;
        }
        return Recorded[2 * Next++ + 1] == '1';
      },
      Prefix);
  if (!Fits || 2 * Next != Recorded.size())
    return false;
  // Then the parse's own, as Clang lists them after the header's.
  for (clang::Decl *D : TU->noload_decls())
    if (!D->isFromASTFile())
      Prefix.push_back(D);
  Out.assign(Prefix.begin(), Prefix.end());
  return true;
}

} // namespace frontend
} // namespace tilefit
