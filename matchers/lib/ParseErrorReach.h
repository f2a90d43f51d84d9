//===- ParseErrorReach.h ----------------------------------------*- C++ -*-===//
// Errors inside the code a kernel uses.
#ifndef TILEFIT_MATCHERS_PARSEERRORREACH_H
#define TILEFIT_MATCHERS_PARSEERRORREACH_H

#include "tilefit/matchers/ParseErrors.h"

#include "clang/AST/Type.h"
#include "clang/Basic/SourceLocation.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <utility>
#include <vector>

namespace clang {
class SourceManager;
}

namespace tilefit {
namespace matchers {

/// Finds the errors that lie in the text of declarations (a function's
/// definition, a variable's declaration, a class's definition), each
/// declaration looked up once.
class ErrorReach {
public:
  ErrorReach(const clang::SourceManager &SM, llvm::ArrayRef<ParseError> Errors);

  /// The first error (its diagnostic index) inside one of \p Uses (for a
  /// specialization, the template's text) that was not reported while
  /// instantiating only specializations outside \p Ids (canonical declarations
  /// of what the kernel uses).
  std::optional<size_t>
  touching(llvm::ArrayRef<const clang::Decl *> Uses,
           const llvm::SmallPtrSetImpl<const clang::Decl *> &Ids);

  /// The unit's first error (its diagnostic index), if any.
  std::optional<size_t> firstError() const;

  /// Adds the class of \p T (arrays stripped) and, recursively, the classes of
  /// its bases and fields to \p Out, each once (by canonical declaration, in \p
  /// Seen).
  static void addRecordTypes(clang::QualType T,
                             llvm::SmallVectorImpl<const clang::Decl *> &Out,
                             llvm::SmallPtrSetImpl<const clang::Decl *> &Seen);

private:
  const llvm::SmallVector<size_t, 2> &errorsIn(const clang::Decl *D);

  const clang::SourceManager &SM;
  llvm::ArrayRef<ParseError> Errors;
  /// Per file: (offset, index into Errors), sorted.
  llvm::DenseMap<clang::FileID, std::vector<std::pair<unsigned, size_t>>>
      ByFile;
  llvm::DenseMap<const clang::Decl *, llvm::SmallVector<size_t, 2>> Inside;
};

} // namespace matchers
} // namespace tilefit

#endif
