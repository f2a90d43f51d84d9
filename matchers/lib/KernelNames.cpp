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

/// Mangles \p GD as nvcc spells it where Clang 19's Itanium mangler is newer:
/// Clang 18 added `Tn<type>` for a non-type template parameter whose type is
/// dependent (`template <typename T, void (*F)(T)>`, `template <auto V>`), and
/// `Tk`/`Q`/`Tt`/`Dk` for constraints and template template parameters; nvcc
/// (EDG), like GCC, writes none of them. Clang's ABI-compatibility level 17
/// restores the older mangling: in Clang 19 only the Itanium mangler reads the
/// 17 and 18 levels (record layout reads levels 15 and older only), and it
/// reads the setting on every call, so it is lowered just around the call.
void mangleAsNvcc(MangleContext &MC, GlobalDecl GD, llvm::raw_ostream &OS) {
  auto &LO = const_cast<LangOptions &>(MC.getASTContext().getLangOpts());
  const LangOptions::ClangABI Was = LO.getClangABICompat();
  if (Was > LangOptions::ClangABI::Ver17)
    LO.setClangABICompat(LangOptions::ClangABI::Ver17);
  MC.mangleName(GD, OS);
  LO.setClangABICompat(Was);
}

GlobalDecl kernelDecl(const FunctionDecl *FD) {
  // The kernel itself, not the host-side stub (`__device_stub__...`) a
  // host-side parse names.
  return FD->hasAttr<CUDAGlobalAttr>()
             ? GlobalDecl(FD, KernelReferenceKind::Kernel)
             : GlobalDecl(FD);
}

/// nvcc's module id M of a translation unit, as observed with nvcc 13:
/// `_<crc32 of the main file's real path>_<length>_<file name, every byte but
/// letters, digits and '_' as '_'>_<id>`, where <id> is the mangled name of the
/// unit's first qualifying definition (below), kept when at most 8 characters
/// long and replaced by its crc32 otherwise. nvcc names the anonymous
/// namespace `_GLOBAL__N_` + M and, with -rdc, a kernel of internal linkage
/// `__nv_static_<length of M>_` + M + `_` + its name. Without a qualifying
/// definition nvcc makes the id from a process id, which cannot be predicted:
/// then nothing is returned.
std::optional<std::string> nvccModuleId(ASTContext &Ctx, MangleContext &MC) {
  const SourceManager &SM = Ctx.getSourceManager();
  OptionalFileEntryRef Main = SM.getFileEntryRefForID(SM.getMainFileID());
  if (!Main)
    return std::nullopt;
  llvm::SmallString<256> Real;
  if (llvm::sys::fs::real_path(Main->getName(), Real))
    return std::nullopt;

  // The first qualifying definition, in declaration order, recursing into
  // named namespaces and linkage specifications: a non-inline, non-template
  // function definition of external linkage (out-of-line members included:
  // a constructor by its complete-object name, a destructor likewise), not an
  // explicit specialization; or a variable of external linkage defined with an
  // initializer, whose type is not deduced.
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
    if ((isa<NamespaceDecl>(D) && !cast<NamespaceDecl>(D)->isAnonymousNamespace()) ||
        isa<LinkageSpecDecl>(D)) {
      Walk(cast<DeclContext>(D));
      return;
    }
    std::optional<GlobalDecl> GD;
    if (const auto *FD = dyn_cast<FunctionDecl>(D)) {
      if (FD->isThisDeclarationADefinition() && !FD->isInlined() &&
          !FD->isTemplated() &&
          FD->getTemplateSpecializationKind() == TSK_Undeclared &&
          FD->getFormalLinkage() == Linkage::External) {
        if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(FD))
          GD = GlobalDecl(Ctor, Ctor_Complete);
        else if (const auto *Dtor = dyn_cast<CXXDestructorDecl>(FD))
          GD = GlobalDecl(Dtor, Dtor_Complete);
        else
          GD = kernelDecl(FD);
      }
    } else if (const auto *VD = dyn_cast<VarDecl>(D)) {
      if (VD->hasInit() && !VD->isInline() &&
          VD->getFormalLinkage() == Linkage::External &&
          VD->isThisDeclarationADefinition() == VarDecl::Definition &&
          !VD->isTemplated() && !VD->getType()->getContainedDeducedType())
        GD = GlobalDecl(VD);
    }
    if (!GD)
      return;
    const auto *ND = cast<NamedDecl>(GD->getDecl());
    std::string Name;
    if (MC.shouldMangleDeclName(ND)) {
      llvm::raw_string_ostream OS(Name);
      mangleAsNvcc(MC, *GD, OS);
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
  // The whole unit, not the declarations a traversal scope may be limited to.
  Walk(Ctx.getTranslationUnitDecl());
  if (!Id)
    return std::nullopt;

  char Hash[16];
  std::snprintf(Hash, sizeof(Hash), "%08x",
                llvm::crc32(llvm::arrayRefFromStringRef(Real.str())));
  // Every byte but letters, digits and '_' becomes '_' (`set-rows.cu`:
  // `set_rows_cu`).
  std::string Stem = llvm::sys::path::filename(Real).str();
  for (char &C : Stem)
    if (!llvm::isAlnum(C) && C != '_')
      C = '_';
  return "_" + std::string(Hash) + "_" + std::to_string(Stem.size()) + "_" +
         Stem + "_" + *Id;
}

/// nvcc's `<length>_GLOBAL__N_<M>` for the anonymous namespace.
std::string anonymousNamespaceName(const std::string &ModuleId) {
  std::string Name = "_GLOBAL__N_" + ModuleId;
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
  mangleAsNvcc(MC, kernelDecl(FD), OS);
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
  // Computed once, for the first name that has an anonymous namespace in it
  // (the kernel's, or one of its template arguments').
  std::string Name = ptxasName(*MC, Kernel, AnonymousNs);
  if (!ModuleComputed && Name.find("12_GLOBAL__N_1") != std::string::npos) {
    ModuleId = nvccModuleId(Ctx, *MC);
    ModuleComputed = true;
    if (ModuleId)
      AnonymousNs = anonymousNamespaceName(*ModuleId);
    Name = ptxasName(*MC, Kernel, AnonymousNs);
  }
  return Name;
}

std::string KernelNamer::relocatableName(const FunctionDecl *Kernel,
                                         const std::string &Mangled) {
  if (Kernel->isExternallyVisible())
    return "";
  if (!ModuleComputed) {
    ModuleId = nvccModuleId(Ctx, *MC);
    ModuleComputed = true;
    if (ModuleId)
      AnonymousNs = anonymousNamespaceName(*ModuleId);
  }
  if (!ModuleId)
    return "";
  return "__nv_static_" + std::to_string(ModuleId->size()) + "_" + *ModuleId +
         "_" + Mangled;
}

namespace {
/// Why nvcc's name for a kernel whose template arguments involve \p T cannot
/// be derived; "" when it can.
std::string typeDiffers(QualType T, int Depth);

std::string argumentDiffers(const TemplateArgument &A, int Depth) {
  if (Depth > 8)
    return "";
  switch (A.getKind()) {
  case TemplateArgument::Type:
    return typeDiffers(A.getAsType(), Depth + 1);
  case TemplateArgument::Declaration: {
    const ValueDecl *D = A.getAsDecl();
    if (D && !D->isExternallyVisible() && !D->isInAnonymousNamespace())
      return "a template argument names '" + D->getNameAsString() +
             "', which has internal linkage: nvcc adds its _INTERNAL_<module "
             "id> prefix there, which tilefit does not derive";
    return D ? typeDiffers(D->getType(), Depth + 1) : "";
  }
  case TemplateArgument::Pack:
    for (const TemplateArgument &P : A.pack_elements())
      if (std::string Why = argumentDiffers(P, Depth + 1); !Why.empty())
        return Why;
    return "";
  default:
    return "";
  }
}

std::string typeDiffers(QualType T, int Depth) {
  if (T.isNull() || Depth > 8)
    return "";
  T = T.getCanonicalType();
  while (!T->getPointeeType().isNull())
    T = T->getPointeeType().getCanonicalType();
  const auto *RD = T->getAsCXXRecordDecl();
  if (!RD)
    return "";
  if (RD->isLambda()) {
    for (const DeclContext *DC = RD->getDeclContext(); DC; DC = DC->getParent())
      if (const auto *FD = dyn_cast<FunctionDecl>(DC);
          FD && (FD->isTemplateInstantiation() || FD->isTemplated()))
        return "a template argument is a lambda defined in the function "
               "template '" +
               FD->getNameAsString() +
               "': nvcc numbers the name's substitutions by the template as "
               "written, Clang by the instantiation";
    return "";
  }
  if (const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(RD))
    for (const TemplateArgument &A : Spec->getTemplateArgs().asArray())
      if (std::string Why = argumentDiffers(A, Depth + 1); !Why.empty())
        return Why;
  return "";
}
} // namespace

std::string KernelNamer::differsFromNvcc(const FunctionDecl *Kernel,
                                         const std::string &Mangled) {
  if (Mangled.find("12_GLOBAL__N_1") != std::string::npos)
    return "nvcc names the anonymous namespace after the unit's first "
           "external definition, and this unit has none tilefit can see (nvcc "
           "then uses a process id)";
  if (const TemplateArgumentList *Args =
          Kernel->getTemplateSpecializationArgs())
    for (const TemplateArgument &A : Args->asArray())
      if (std::string Why = argumentDiffers(A, 0); !Why.empty())
        return Why;
  return "";
}

} // namespace matchers
} // namespace tilefit
