//===- EmissionWalk.h - The unit as NVVM's front end walks it ---*- C++ -*-===//
//
// Builds the EmissionProgram of a translation unit: in source order, the
// global-namespace `__shared__` declarations, the non-template function
// definitions with the template specializations they reference, and explicit
// instantiations; for each function, its own `__shared__` statics in block
// pre-order and its nested functions. The model derives the PTX emission order
// from it (Layout.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_MATCHERS_EMISSIONWALK_H
#define TILEFIT_MATCHERS_EMISSIONWALK_H

#include "tilefit/model/Facts.h"

#include "llvm/ADT/DenseMap.h"

namespace clang {
class ASTContext;
class VarDecl;
} // namespace clang

namespace tilefit {
namespace matchers {

class InstantiationRecorder;

/// \p VarIndex maps each `__shared__` variable (canonical declaration) to its
/// index in the unit's facts; variables not in it are ignored. The functions
/// that cannot place one of them are left out (pruneEmission, Layout.h).
EmissionProgram buildEmissionProgram(
    clang::ASTContext &Ctx,
    const llvm::DenseMap<const clang::VarDecl *, size_t> &VarIndex,
    const InstantiationRecorder &Instantiations);

} // namespace matchers
} // namespace tilefit

#endif
