//===- SourcePosition.cpp -------------------------------------------------===//
#include "tilefit/matchers/SourcePosition.h"

#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

namespace tilefit {
namespace matchers {

SourcePos toSourcePos(const clang::SourceManager &SM,
                      clang::SourceLocation Loc) {
  SourcePos P;
  if (Loc.isInvalid())
    return P;
  clang::SourceLocation Exp = SM.getExpansionLoc(Loc);
  clang::PresumedLoc PL = SM.getPresumedLoc(Exp);
  if (PL.isInvalid())
    return P;
  llvm::SmallString<256> Path(PL.getFilename());
  if (!Path.empty() && Path != "<built-in>" && Path != "<command line>" &&
      Path != "<scratch space>") {
    SM.getFileManager().makeAbsolutePath(Path);
    llvm::sys::path::remove_dots(Path, /*remove_dot_dot=*/true);
  }
  P.File = std::string(Path);
  P.Line = PL.getLine();
  P.Column = PL.getColumn();
  return P;
}

} // namespace matchers
} // namespace tilefit
