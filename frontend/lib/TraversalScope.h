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
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace clang {
class ASTContext;
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

} // namespace frontend
} // namespace tilefit

#endif
