//===- KernelNames.h - Kernel names as ptxas prints them --------*- C++ -*-===//
#ifndef TILEFIT_MATCHERS_KERNELNAMES_H
#define TILEFIT_MATCHERS_KERNELNAMES_H

#include <memory>
#include <optional>
#include <string>

namespace clang {
class ASTContext;
class FunctionDecl;
class MangleContext;
} // namespace clang

namespace tilefit {
namespace matchers {

/// Names kernels as nvcc does (see KernelNames.cpp), in device-side and
/// host-side parses alike.
class KernelNamer {
public:
  explicit KernelNamer(clang::ASTContext &Ctx);
  ~KernelNamer();
  std::string mangled(const clang::FunctionDecl *Kernel);

private:
  clang::ASTContext &Ctx;
  std::unique_ptr<clang::MangleContext> MC;
  bool AnonymousComputed = false;
  std::optional<std::string> AnonymousNs;
};

/// `ns::staged<64, 16, 3>`; a lambda's call operator as `lambda in <function>`.
std::string functionName(const clang::FunctionDecl *FD);

} // namespace matchers
} // namespace tilefit

#endif
