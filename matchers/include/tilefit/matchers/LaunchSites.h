//===- LaunchSites.h - Kernel launches in host code -------------*- C++ -*-===//
#ifndef TILEFIT_MATCHERS_LAUNCHSITES_H
#define TILEFIT_MATCHERS_LAUNCHSITES_H

#include "tilefit/model/Facts.h"

namespace clang {
class ASTContext;
class CUDAKernelCallExpr;
class FunctionDecl;
} // namespace clang

namespace tilefit {
namespace matchers {

/// The kernel a `<<<...>>>` launch calls (the instantiation, for a template), or null.
const clang::FunctionDecl *launchedKernel(const clang::CUDAKernelCallExpr *Call);

/// The launch's location, dynamic shared memory and block size, each evaluated where it is a
/// compile-time constant, with the reason where it is not.
LaunchSite describeLaunch(const clang::ASTContext &Ctx, const clang::CUDAKernelCallExpr *Call);

} // namespace matchers
} // namespace tilefit

#endif
