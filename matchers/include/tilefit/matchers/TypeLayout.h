//===- TypeLayout.h - A variable's type as a layout -------------*- C++ -*-===//
#ifndef TILEFIT_MATCHERS_TYPELAYOUT_H
#define TILEFIT_MATCHERS_TYPELAYOUT_H

#include "tilefit/model/Facts.h"

namespace clang {
class ASTContext;
class VarDecl;
} // namespace clang

namespace tilefit {
namespace matchers {

/// Fills \p Out's type, element type, shape, element size, alignment and size
/// from Clang's record layout for \p VD (on the device target), or its unknown
/// reason. `extern __shared__` arrays without a size are marked dynamic.
void describeVariableLayout(const clang::ASTContext &Ctx,
                            const clang::VarDecl *VD, SharedVar &Out);

/// The declaration as written: for a variable of a function template's
/// instantiation, the template's own (its bounds are the expressions the
/// programmer wrote); \p VD otherwise.
const clang::VarDecl *writtenDecl(const clang::VarDecl *VD);

} // namespace matchers
} // namespace tilefit

#endif
