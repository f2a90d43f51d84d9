//===- WrittenSource.h - Where a quick fix may edit the source --*- C++ -*-===//
//
// The spans of a `__shared__` declaration and of a `<<<>>>` launch that the
// `extern __shared__` quick fix rewrites (model/checks/ExternSharedFix.cpp),
// found only where the edit is mechanical: written plainly, outside macros and
// templates' shared text, on one line.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_MATCHERS_WRITTENSOURCE_H
#define TILEFIT_MATCHERS_WRITTENSOURCE_H

#include "tilefit/model/Facts.h"

namespace clang {
class ASTContext;
class CUDAKernelCallExpr;
class FunctionDecl;
class VarDecl;
} // namespace clang

namespace tilefit {
namespace matchers {

/// \p VD's declaration as written, for a kernel's own array declared alone in
/// its statement, without initializer, qualifiers or `alignas`; invalid
/// otherwise.
WrittenDeclaration writtenDeclaration(clang::ASTContext &Ctx,
                                      const clang::VarDecl *VD);

/// \p Call as written in \p Fn, for a launch that is a statement of its own in
/// a block of a function that is no template's instantiation, with its bytes
/// argument not written or a literal `0`; invalid otherwise.
WrittenLaunch writtenLaunch(clang::ASTContext &Ctx,
                            const clang::CUDAKernelCallExpr *Call,
                            const clang::FunctionDecl *Fn);

} // namespace matchers
} // namespace tilefit

#endif
