//===- KernelNames.h - Kernel names as ptxas prints them --------*- C++ -*-===//
#ifndef TILEFIT_MATCHERS_KERNELNAMES_H
#define TILEFIT_MATCHERS_KERNELNAMES_H

#include "tilefit/model/Reason.h"

#include "clang/Basic/SourceLocation.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace clang {
class ASTContext;
class FunctionDecl;
class MangleContext;
} // namespace clang

namespace tilefit {
namespace matchers {

/// Where the device-side parse's view of a unit may differ from nvcc's host
/// side, which names the unit (KernelNames.cpp, nvccModuleId): the
/// conditional blocks on `__CUDA_ARCH__` outside system headers, from their
/// `#if` to their `#endif`, and the start of each block the parse skipped
/// that may hold a definition. The front end's preprocessor records them.
struct ArchConditionals {
  std::vector<clang::SourceRange> Blocks;
  std::vector<clang::SourceLocation> SkippedDefinitions;
};

/// Names kernels as nvcc does (see KernelNames.cpp), in device-side and
/// host-side parses alike.
class KernelNamer {
public:
  /// \p Arch, where given, lets the namer say when nvcc's module id may
  /// differ (moduleIdCaveat()).
  explicit KernelNamer(clang::ASTContext &Ctx,
                       const ArchConditionals *Arch = nullptr);
  /// Where the module id's definition is searched for: the whole unit
  /// (the default), or the AST context's traversal scope, where the front
  /// end set it to the unit's declarations in their order with the header
  /// walk's record (the precompiled headers' namespaces replaced by their
  /// members, only the templates this parse read among them: a template is
  /// never the definition, nor are the CUDA runtime headers' declarations,
  /// which the scope leaves out).
  void searchModuleIdInScope(bool InScope) { ModuleIdInScope = InScope; }
  ~KernelNamer();
  std::string mangled(const clang::FunctionDecl *Kernel);
  /// With -rdc, nvcc's name for a kernel of internal linkage (`static`, in an
  /// anonymous namespace, or with such a template argument):
  /// `__nv_static_<length of M>_<M>_` + \p Mangled, M the unit's module id;
  /// "" for a kernel of external linkage, or where M cannot be derived.
  std::string relocatableName(const clang::FunctionDecl *Kernel,
                              const std::string &Mangled);
  /// Why \p Mangled (mangled() of \p Kernel) may not be the name ptxas prints:
  /// parts of nvcc's name tilefit does not derive (internal-linkage template
  /// arguments, lambdas of function templates, an anonymous namespace nvcc
  /// names from a process id); none when it is nvcc's.
  Reason differsFromNvcc(const clang::FunctionDecl *Kernel,
                         const std::string &Mangled);

  /// Why nvcc's module id may not be the one tilefit derives, none when it is
  /// (or when there is none): the first external definition tilefit sees is
  /// under a `__CUDA_ARCH__` conditional, or follows code the device side
  /// skipped. Computes the module id.
  const Reason &moduleIdCaveat();

private:
  /// nvcc's module id of the unit, computed on first use.
  const std::optional<std::string> &moduleId();
  Reason hostViewCaveat(clang::SourceLocation Chosen) const;

  clang::ASTContext &Ctx;
  const ArchConditionals *Arch;
  std::unique_ptr<clang::MangleContext> MC;
  bool ModuleIdInScope = false;
  bool ModuleComputed = false;
  std::optional<std::string> ModuleId; ///< nvcc's module id (KernelNames.cpp).
  Reason ModuleCaveat;                 ///< moduleIdCaveat().
};

/// `ns::staged<64, 16, 3>`; a lambda's call operator as `lambda in <function>`.
std::string functionName(const clang::FunctionDecl *FD);

} // namespace matchers
} // namespace tilefit

#endif
