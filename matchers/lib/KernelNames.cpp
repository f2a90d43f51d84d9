//===- KernelNames.cpp ----------------------------------------------------===//
#include "tilefit/matchers/KernelNames.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/GlobalDecl.h"
#include "clang/AST/Mangle.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CRC.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdio>
#include <functional>

using namespace clang;

namespace tilefit {
namespace matchers {
namespace {

const FunctionDecl *enclosingFunction(const Decl *D) {
  for (const DeclContext *DC = D->getDeclContext(); DC; DC = DC->getParent())
    if (const auto *FD = dyn_cast<FunctionDecl>(DC))
      return FD;
  return nullptr;
}

} // namespace

std::string functionName(const FunctionDecl *FD) {
  // A lambda's call operator is named after the function the lambda stands in.
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD))
    if (MD->getParent()->isLambda())
      if (const FunctionDecl *Outer = enclosingFunction(MD->getParent()))
        return "lambda in " + functionName(Outer);
  std::string S;
  llvm::raw_string_ostream OS(S);
  PrintingPolicy PP(FD->getASTContext().getLangOpts());
  PP.SuppressTagKeyword = true;
  PP.SuppressInlineNamespace = true;
  FD->getNameForDiagnostic(OS, PP, /*Qualified=*/true);
  return OS.str();
}

namespace {

/// nvcc's name for the anonymous namespace of a translation unit, as observed
/// with nvcc 13:
/// `_GLOBAL__N__<crc32 of the main file's real path>_<length>_<file name, '.'
/// as '_'>_<id>`, where <id> is the mangled name of the unit's first external,
/// non-inline, non-template function definition or initialized variable, kept
/// when at most 8 characters long and replaced by its crc32 otherwise. Without
/// such a definition nvcc makes the id from a process id, which cannot be
/// predicted: then nothing is returned and Clang's name is kept.
std::optional<std::string> nvccAnonymousNamespace(ASTContext &Ctx,
                                                  MangleContext &MC) {
  const SourceManager &SM = Ctx.getSourceManager();
  OptionalFileEntryRef Main = SM.getFileEntryRefForID(SM.getMainFileID());
  if (!Main)
    return std::nullopt;
  llvm::SmallString<256> Real;
  if (llvm::sys::fs::real_path(Main->getName(), Real))
    return std::nullopt;

  // The first qualifying definition, in declaration order.
  std::optional<std::string> Id;
  std::function<void(const Decl *)> Visit;
  auto Walk = [&](const DeclContext *DC) {
    for (const Decl *D : DC->decls()) {
      if (Id)
        return;
      Visit(D);
    }
  };
  Visit = [&](const Decl *D) {
    if (isa<NamespaceDecl>(D) || isa<LinkageSpecDecl>(D)) {
      Walk(cast<DeclContext>(D));
      return;
    }
    const NamedDecl *ND = nullptr;
    if (const auto *FD = dyn_cast<FunctionDecl>(D)) {
      if (FD->isThisDeclarationADefinition() && !FD->isInlined() &&
          !FD->isTemplated() && !FD->isTemplateInstantiation() &&
          !isa<CXXMethodDecl>(FD) && FD->isExternallyVisible())
        ND = FD;
    } else if (const auto *VD = dyn_cast<VarDecl>(D)) {
      if (VD->hasInit() && !VD->isInline() && VD->isExternallyVisible() &&
          VD->isThisDeclarationADefinition() == VarDecl::Definition &&
          !VD->isTemplated())
        ND = VD;
    }
    if (!ND)
      return;
    std::string Name;
    if (MC.shouldMangleDeclName(ND)) {
      llvm::raw_string_ostream OS(Name);
      if (const auto *FD = dyn_cast<FunctionDecl>(ND))
        MC.mangleName(FD->hasAttr<CUDAGlobalAttr>()
                          ? GlobalDecl(FD, KernelReferenceKind::Kernel)
                          : GlobalDecl(FD),
                      OS);
      else
        MC.mangleName(GlobalDecl(cast<VarDecl>(ND)), OS);
    } else {
      Name = ND->getName().str();
    }
    if (Name.size() > 8) {
      char Buf[16];
      std::snprintf(Buf, sizeof(Buf), "%08x",
                    llvm::crc32(llvm::arrayRefFromStringRef(Name)));
      Name = Buf;
    }
    Id = Name;
  };
  // The unit, or the declarations it is limited to
  // (ASTContext::setTraversalScope).
  for (Decl *D : Ctx.getTraversalScope()) {
    if (Id)
      break;
    if (const auto *TU = dyn_cast<TranslationUnitDecl>(D))
      Walk(TU);
    else
      Visit(D);
  }
  if (!Id)
    return std::nullopt;

  char Hash[16];
  std::snprintf(Hash, sizeof(Hash), "%08x",
                llvm::crc32(llvm::arrayRefFromStringRef(Real.str())));
  std::string Stem = llvm::sys::path::filename(Real).str();
  std::replace(Stem.begin(), Stem.end(), '.', '_');
  std::string Name = "_GLOBAL__N__" + std::string(Hash) + "_" +
                     std::to_string(Stem.size()) + "_" + Stem + "_" + *Id;
  return std::to_string(Name.size()) + Name;
}

/// The name ptxas prints for \p FD. Clang's device-side Itanium mangling agrees
/// with nvcc's except for internal linkage: Clang marks internal names with 'L'
/// (`_ZL2ksPc`), nvcc does not
/// (`_Z2ksPc`); and the anonymous namespace is Clang's `_GLOBAL__N_1`, nvcc's
/// \p AnonymousNs.
std::string ptxasName(MangleContext &MC, const FunctionDecl *FD,
                      const std::optional<std::string> &AnonymousNs) {
  if (!MC.shouldMangleDeclName(FD))
    return FD->getNameAsString();
  std::string S;
  llvm::raw_string_ostream OS(S);
  // The kernel itself, not the host-side stub (`__device_stub__...`) a
  // host-side parse names.
  MC.mangleName(FD->hasAttr<CUDAGlobalAttr>()
                    ? GlobalDecl(FD, KernelReferenceKind::Kernel)
                    : GlobalDecl(FD),
                OS);
  OS.flush();
  if (!FD->isExternallyVisible() && !FD->isInAnonymousNamespace() &&
      FD->getIdentifier()) {
    std::string Marker =
        "L" + std::to_string(FD->getName().size()) + FD->getName().str();
    if (auto P = S.find(Marker); P != std::string::npos)
      S.erase(P, 1);
  }
  static const std::string ClangAnonymous = "12_GLOBAL__N_1";
  if (AnonymousNs)
    for (size_t P = S.find(ClangAnonymous); P != std::string::npos;
         P = S.find(ClangAnonymous, P + AnonymousNs->size()))
      S.replace(P, ClangAnonymous.size(), *AnonymousNs);
  return S;
}

} // namespace

KernelNamer::KernelNamer(ASTContext &Ctx)
    : Ctx(Ctx), MC(Ctx.createMangleContext()) {}
KernelNamer::~KernelNamer() = default;

std::string KernelNamer::mangled(const FunctionDecl *Kernel) {
  if (Kernel->isInAnonymousNamespace() && !AnonymousComputed) {
    AnonymousNs = nvccAnonymousNamespace(Ctx, *MC);
    AnonymousComputed = true;
  }
  return ptxasName(*MC, Kernel, AnonymousNs);
}

} // namespace matchers
} // namespace tilefit
