//===- SourcePosition.h - Clang locations to tilefit positions --*- C++ -*-===//
#ifndef TILEFIT_MATCHERS_SOURCEPOSITION_H
#define TILEFIT_MATCHERS_SOURCEPOSITION_H

#include "tilefit/model/Facts.h"

#include "clang/Basic/SourceLocation.h"

namespace clang {
class SourceManager;
}

namespace tilefit {
namespace matchers {

/// The file, line and column clang's diagnostics would show for \p Loc (the
/// expansion point of a macro), with the file name made absolute and free of
/// `.`/`..`.
SourcePos toSourcePos(const clang::SourceManager &SM,
                      clang::SourceLocation Loc);

} // namespace matchers
} // namespace tilefit

#endif
