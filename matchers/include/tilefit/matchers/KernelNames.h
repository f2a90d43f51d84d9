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
  /// With -rdc, nvcc's name for a kernel of internal linkage (`static`, in an
  /// anonymous namespace, or with such a template argument):
  /// `__nv_static_<length of M>_<M>_` + \p Mangled, M the unit's module id;
  /// "" for a kernel of external linkage, or where M cannot be derived.
  std::string relocatableName(const clang::FunctionDecl *Kernel,
                              const std::string &Mangled);
  /// Why \p Mangled (mangled() of \p Kernel) may not be the name ptxas
  /// prints: parts of nvcc's name tilefit does not derive (internal-linkage
  /// template arguments, lambdas of function templates, an anonymous
  /// namespace nvcc names from a process id); ""
  /// when it is nvcc's.
  std::string differsFromNvcc(const clang::FunctionDecl *Kernel,
                              const std::string &Mangled);

private:
  /// nvcc's module id of the unit, computed on first use.
  const std::optional<std::string> &moduleId();

  clang::ASTContext &Ctx;
  std::unique_ptr<clang::MangleContext> MC;
  bool ModuleComputed = false;
  std::optional<std::string> ModuleId; ///< nvcc's module id (KernelNames.cpp).
};

/// `ns::staged<64, 16, 3>`; a lambda's call operator as `lambda in <function>`.
std::string functionName(const clang::FunctionDecl *FD);

} // namespace matchers
} // namespace tilefit

#endif
