//===- TraversalScope.h - What a parse over a precompiled header visits -===//
//
// Internal to the front end: shared by the parses (ParseUnit.cpp) and the
// precompiled headers they load (HeaderPch.cpp). A parse that loads the CUDA
// runtime headers precompiled visits neither their declarations nor their
// functions but through the calls of what it does visit: the runtime headers
// declare no kernel, no launch and no `__shared__` or `__constant__` variable.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_FRONTEND_TRAVERSALSCOPE_H
#define TILEFIT_FRONTEND_TRAVERSALSCOPE_H

#include "clang/Basic/SourceLocation.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace clang {
class ASTContext;
class ASTReader;
class Decl;
class SourceManager;
} // namespace clang

namespace tilefit {
namespace frontend {

/// Whether \p Loc is in a file \p IsRoot accepts (by its name) or one such a
/// file includes, directly or not; \p Known remembers the answer per file.
bool includedFrom(const clang::SourceManager &SM, clang::SourceLocation Loc,
                  llvm::function_ref<bool(llvm::StringRef)> IsRoot,
                  llvm::DenseMap<clang::FileID, bool> &Known);

/// Whether \p Loc is in a file the CUDA runtime wrapper includes (or in the
/// wrapper); \p Known remembers the answer per file.
bool fromRuntimeHeaders(const clang::SourceManager &SM,
                        clang::SourceLocation Loc,
                        llvm::DenseMap<clang::FileID, bool> &Known);

/// Recorded while a precompiled prefix (the runtime headers, then a unit's
/// leading #include lines) is built, before it is written: for each top-level
/// declaration of the translation unit, in the order the precompiled header
/// lists them, its kind and whether a parse that loads the prefix visits it
/// (it is not from the runtime headers).
std::string recordPrefixScope(clang::ASTContext &Ctx);

/// The top-level declarations of a parse that loads a precompiled prefix, as a
/// parse without it has them, but those of the runtime headers: the prefix's,
/// chosen by \p Recorded (recordPrefixScope) without reading the others from
/// the precompiled header, then the parse's own. False, with \p Out untouched,
/// when the record does not fit the header loaded (another build, a damaged
/// record) or the header's declarations were already read: the caller then
/// reads them all and chooses itself.
bool prefixTraversalScope(clang::ASTContext &Ctx, llvm::StringRef Recorded,
                          std::vector<clang::Decl *> &Out);

/// Made by the first parse that loads a preamble or a precompiled prefix, once
/// Sema is done: for each namespace (or linkage specification) of the header
/// in \p Scope, and each one nested in it, the members a walk over the
/// traversal scope can find something in, by declaration ID, in their order:
/// the header's non-templated declarations, its templates that have
/// specializations in the header, and, marked as such, its other templates
/// (class, function and variable templates, alias templates, concepts), which
/// a parse visits only if it read them itself. Templated declarations that are
/// not templates (partial specializations, members of class templates defined
/// out of line) are left out: every walk skips them. Empty when \p Reader has
/// no declaration to record.
std::string recordHeaderWalk(clang::ASTReader &Reader,
                             llvm::ArrayRef<clang::Decl *> Scope);

/// \p Scope with each namespace of the header that \p Recorded
/// (recordHeaderWalk) describes replaced by its recorded members, read one by
/// one, the templates among them only where this parse read them itself (a
/// template whose specializations this parse made or asked for was read); and
/// after them the members this parse added itself (Clang lists those last).
/// The walks (matchInstantiated, the emission walk, the launch index) then
/// visit what they visit in the whole namespace, in the same order, without
/// reading the rest of it from the header. False, with \p Out untouched, when
/// the record does not fit the header loaded.
bool flattenHeaderWalk(clang::ASTReader &Reader, llvm::StringRef Recorded,
                       llvm::ArrayRef<clang::Decl *> Scope,
                       std::vector<clang::Decl *> &Out);

} // namespace frontend
} // namespace tilefit

#endif
