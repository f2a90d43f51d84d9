//===- SourceFixups.h -------------------------------------------*- C++ -*-===//
//
// nvcc-accepted code Clang rejects, rewritten.
//
// A few constructs that nvcc compiles are errors for Clang 19, and no
// declaration can make Clang accept them: Clang's parser or Sema rejects the
// code itself. Each has a rewrite that Clang accepts and that keeps what
// tilefit counts (the same variables, types, sizes, alignments and references).
// When a parse reports such an error, the unit is parsed again with its files
// rewritten in memory (an overlay, as for an editor's unsaved buffers): the
// analysis is then the one nvcc's code would have had.
//
// Every rewrite keeps the length of the text it replaces, so that every line
// and column the report names is the one in the file on disk. A construct spelt
// through a macro, or that the rewrite cannot find as it expects, is left as it
// is: the error stays, and the unit's analysis treats it as any other error
// (the kernels it touches get no figure).
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_FRONTEND_SOURCEFIXUPS_H
#define TILEFIT_FRONTEND_SOURCEFIXUPS_H

#include "tilefit/model/Facts.h"

#include "clang/Basic/SourceLocation.h"
#include "llvm/ADT/ArrayRef.h"

#include <map>
#include <string>
#include <vector>

namespace clang {
class ASTContext;
class NamedDecl;
class VarDecl;
} // namespace clang

namespace tilefit {
namespace frontend {

/// One error Clang reported, with what a rewrite needs to know about it.
struct ReportedError {
  unsigned ID = 0; ///< Clang's diagnostic ID.
  clang::SourceLocation Loc;
  std::vector<clang::CharSourceRange>
      Ranges; ///< The ranges the diagnostic highlights.
  std::vector<int64_t>
      IntArgs; ///< Integer (and token-kind) arguments, by position.
  /// The first declaration argument, if any; for an initialization error of a
  /// `__shared__` variable, that variable.
  const clang::NamedDecl *DeclArg = nullptr;
  /// Reported while Sema was instantiating a template.
  bool InInstantiation = false;
};

/// The macro the shared-constructor fix-up spells a `__shared__` as (the same
/// ten columns), and what every parse defines it to (`-D`): automatic storage
/// in Clang's eyes, where its check of a `__shared__` variable's initialization
/// does not apply, and still the shared attribute.
extern const char *const SharedRegisterMacro;
extern const char *const SharedRegisterDefinition;

/// The name that starts the host functions a fix-up adds at the end of a unit
/// (to reference a kernel template's specialization that only device code
/// launches).
extern const char *const AppendedPrefix;

/// The rule of an edit that changes nothing but says that a kernel template's
/// specialization launched from device code inside a template instantiation
/// could not be instantiated.
extern const char *const UninstantiatedLaunchRule;

/// A rewrite of one file's text: \p Replacement replaces \p Length bytes at \p
/// Offset. Every edit keeps the length (Length == Replacement.size()) but those
/// that add lines at the end of the unit's main file (Offset == its size,
/// Length == 0), which moves nothing either.
struct TextEdit {
  std::string File; ///< Absolute path, as the parse opened it.
  unsigned Offset = 0;
  unsigned Length = 0;
  std::string Replacement;
  SourceFixup What; ///< Where, and which rule (for the report).
};

/// The rewrites for the errors in \p Errors that are constructs nvcc accepts
/// (see SourceFixups.cpp for each rule), found in the parse \p Ctx. \p
/// SharedVars are the unit's `__shared__` variables (instantiations included);
/// \p Relocatable says whether the command compiles relocatable device code
/// (device-side launches need it, with nvcc too).
std::vector<TextEdit>
sourceFixups(clang::ASTContext &Ctx, llvm::ArrayRef<ReportedError> Errors,
             llvm::ArrayRef<const clang::VarDecl *> SharedVars,
             bool Relocatable);

/// \p Text with \p Edits (all of one file) applied. Overlapping edits: the
/// first wins.
std::string applyEdits(std::string Text, std::vector<TextEdit> Edits);

/// The edits grouped by file.
std::map<std::string, std::vector<TextEdit>>
editsByFile(const std::vector<TextEdit> &Edits);

} // namespace frontend
} // namespace tilefit

#endif
