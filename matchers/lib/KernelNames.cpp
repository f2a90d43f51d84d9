//===- KernelNames.cpp ----------------------------------------------------===//
#include "tilefit/matchers/KernelNames.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/GlobalDecl.h"
#include "clang/AST/Mangle.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Demangle/ItaniumDemangle.h"
#include "llvm/Support/CRC.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <vector>

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
std::optional<std::string> nvccModuleId(ASTContext &Ctx, MangleContext &MC,
                                        bool InScope, SourceLocation &Chosen) {
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
    if ((isa<NamespaceDecl>(D) &&
         !cast<NamespaceDecl>(D)->isAnonymousNamespace()) ||
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
    Chosen = D->getLocation();
  };
  if (InScope) {
    // The unit's declarations in their order, the precompiled headers'
    // namespaces already replaced by their members (KernelNamer::
    // searchModuleIdInScope), whose reading the walk would repeat: a member
    // of an anonymous namespace among them is not searched.
    for (const Decl *D : Ctx.getTraversalScope()) {
      if (Id)
        break;
      if (!D->isInAnonymousNamespace())
        Visit(D);
    }
  } else {
    // The whole unit, not the declarations a traversal scope may be limited
    // to.
    Walk(Ctx.getTranslationUnitDecl());
  }
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

namespace id = llvm::itanium_demangle;

// nvcc's `_INTERNAL_<module id>` (issue 27.7; the rule and its measurements
// are in the project's notes on kernel names): for every function or variable
// of internal linkage whose name appears inside a kernel's name (a template
// argument `&f`, the function around a lambda), nvcc writes the pseudo-
// namespace `_INTERNAL<M>` as its outermost component, where Clang writes an
// `L` marker. That component is one more substitution candidate, so every
// later back-reference to a candidate after it shifts by one: the name is
// parsed with LLVM's Itanium demangler, instrumented to record the
// substitutions, the nested encodings and Clang's markers, and rewritten.
// // Instrumented Itanium parser: records substitution references, the
// encodings nested in the name (with the substitution-table size at their
// start), and clang's internal-linkage markers 'L'.
class Arena {
  std::vector<std::unique_ptr<char[]>> Blocks;

public:
  void reset() { Blocks.clear(); }
  void *alloc(size_t N) {
    Blocks.emplace_back(new char[N]);
    return Blocks.back().get();
  }
  template <class T, class... Args> T *makeNode(Args &&...A) {
    return new (alloc(sizeof(T))) T(std::forward<Args>(A)...);
  }
  void *allocateNodeArray(size_t N) { return alloc(sizeof(id::Node *) * N); }
};

struct Scanner : id::AbstractManglingParser<Scanner, Arena> {
  using Base = id::AbstractManglingParser<Scanner, Arena>;
  const char *Begin;
  struct Ref {
    size_t Off, Len, Index;
  };
  std::vector<Ref> Refs;
  struct Site {
    size_t NameOff = 0, NameEnd = 0, SubsAtStart = 0;
    int Level = 0, TADepth = 0;
    bool HasL = false, HasAnon = false;
  };
  std::vector<Site> Sites;
  std::vector<size_t> Stack;
  std::vector<size_t> LMarks; // offsets of clang's 'L' markers
  int Level = 0, TADepth = 0;

  Scanner(const char *B, const char *E) : Base(B, E), Begin(B) {}
  size_t off() const { return First - Begin; }

  id::Node *parseSubstitution() {
    const char *S = First;
    id::Node *N = Base::parseSubstitution();
    if (N && S[1] == '_')
      Refs.push_back({size_t(S - Begin), 2, 0});
    else if (N && !(S[1] >= 'a' && S[1] <= 'z')) {
      size_t I = 0;
      const char *P = S + 1;
      for (; *P != '_'; ++P)
        I = I * 36 + (isdigit(*P) ? *P - '0' : *P - 'A' + 10);
      Refs.push_back({size_t(S - Begin), size_t(P + 1 - S), I + 1});
    }
    return N;
  }
  id::Node *parseEncoding(bool ParseParams = true) {
    Site St;
    St.NameOff = off();
    St.SubsAtStart = Subs.size();
    St.Level = Level;
    St.TADepth = TADepth;
    Stack.push_back(Sites.size());
    Sites.push_back(St);
    ++Level;
    id::Node *N = Base::parseEncoding(ParseParams);
    --Level;
    Stack.pop_back();
    return N;
  }
  id::Node *parseName(NameState *State = nullptr) {
    bool IsSiteName = !Stack.empty() && Sites[Stack.back()].NameEnd == 0 &&
                      Sites[Stack.back()].NameOff == off();
    size_t SiteIdx = IsSiteName ? Stack.back() : 0;
    id::Node *N = Base::parseName(State);
    if (IsSiteName)
      Sites[SiteIdx].NameEnd = off();
    return N;
  }
  id::Node *parseTemplateArgs(bool TagTemplates = false) {
    ++TADepth;
    id::Node *N = Base::parseTemplateArgs(TagTemplates);
    --TADepth;
    return N;
  }
  bool directlyInSite() const {
    if (Stack.empty())
      return false;
    const Site &S = Sites[Stack.back()];
    return S.TADepth == TADepth && S.NameEnd == 0;
  }
  id::Node *parseUnqualifiedName(NameState *State, id::Node *Scope,
                                 id::ModuleName *Module) {
    if (look() == 'L') {
      LMarks.push_back(off());
      if (directlyInSite())
        Sites[Stack.back()].HasL = true;
    }
    return Base::parseUnqualifiedName(State, Scope, Module);
  }
  id::Node *parseSourceName(NameState *State) {
    if (directlyInSite() &&
        llvm::StringRef(First, Last - First).starts_with("12_GLOBAL__N_1"))
      Sites[Stack.back()].HasAnon = true;
    return Base::parseSourceName(State);
  }
};

std::string seq(size_t I) {
  if (I == 0)
    return "S_";
  std::string D;
  for (size_t N = I - 1;; N /= 36) {
    unsigned R = N % 36;
    D.insert(D.begin(), char(R < 10 ? '0' + R : 'A' + R - 10));
    if (N < 36)
      break;
  }
  return "S" + D + "_";
}

/// nvcc's spelling of internal-linkage names, given clang's (Ver17) name and
/// nvcc's module id (`_<crc32(realpath)>_<len>_<stem>_<id>`).
std::optional<std::string> nvccInternal(const std::string &Clang,
                                        const std::string &ModuleId) {
  Scanner P(Clang.data(), Clang.data() + Clang.size());
  if (!P.parse())
    return std::nullopt;
  std::string Internal = "_INTERNAL" + ModuleId;
  Internal = std::to_string(Internal.size()) + Internal;
  struct Edit {
    size_t Off, Len;
    std::string Text;
  };
  std::vector<Edit> Edits;
  std::optional<size_t> K, KOff;
  for (size_t M : P.LMarks)
    Edits.push_back({M, 1, ""});
  for (const Scanner::Site &S : P.Sites) {
    if (S.Level == 0 || !(S.HasL || S.HasAnon))
      continue;
    size_t At = S.NameOff;
    bool Global = Clang[At] == 'L';
    if (!Global) {
      if (Clang[At] != 'N')
        continue;
      ++At;
      while (strchr("rVKHRO", Clang[At]))
        ++At;
      if (Clang[At] == 'S') // first component substituted: nvcc adds nothing
        continue;
    }
    std::string Ins;
    if (!K) {
      K = S.SubsAtStart;
      KOff = At;
      Ins = Internal;
    } else {
      Ins = seq(*K);
    }
    if (Global) { // `L<name>` -> `N<internal><name>E`; the 'L' is an LMark
      Edits.push_back({At, 0, "N" + Ins});
      Edits.push_back({S.NameEnd, 0, "E"});
    } else {
      Edits.push_back({At, 0, Ins});
    }
  }
  if (K)
    for (const Scanner::Ref &R : P.Refs)
      if (R.Off > *KOff && R.Index >= *K)
        Edits.push_back({R.Off, R.Len, seq(R.Index + 1)});
  std::stable_sort(
      Edits.begin(), Edits.end(), [](const Edit &A, const Edit &B) {
        return A.Off != B.Off ? A.Off < B.Off : A.Len < B.Len; // inserts first
      });
  std::string Out;
  size_t Pos = 0;
  for (const Edit &E : Edits) {
    Out.append(Clang, Pos, E.Off - Pos);
    Out += E.Text;
    Pos = E.Off + E.Len;
  }
  Out.append(Clang, Pos, std::string::npos);
  // The anonymous namespace.
  std::string Anon = "_GLOBAL__N_" + ModuleId;
  Anon = std::to_string(Anon.size()) + Anon;
  for (size_t F = Out.find("12_GLOBAL__N_1"); F != std::string::npos;
       F = Out.find("12_GLOBAL__N_1", F + Anon.size()))
    Out.replace(F, 14, Anon);
  return Out;
}

/// The name ptxas prints for \p FD. Clang's device-side Itanium mangling agrees
/// with nvcc's except for internal linkage: Clang marks internal names with 'L'
/// (`_ZL2ksPc`), nvcc does not (`_Z2ksPc`); and the anonymous namespace is
/// Clang's `_GLOBAL__N_1`, nvcc's \p AnonymousNs.
std::string ptxasName(MangleContext &MC, const FunctionDecl *FD,
                      const std::optional<std::string> &ModuleId) {
  if (!MC.shouldMangleDeclName(FD))
    return FD->getNameAsString();
  std::string S;
  llvm::raw_string_ostream OS(S);
  mangleAsNvcc(MC, kernelDecl(FD), OS);
  OS.flush();
  // With the module id: `_INTERNAL<M>` where Clang marks internal names, and
  // the anonymous namespace named as nvcc names it.
  if (ModuleId)
    if (std::optional<std::string> Nvcc = nvccInternal(S, *ModuleId))
      return *Nvcc;
  if (!FD->isExternallyVisible() && !FD->isInAnonymousNamespace() &&
      FD->getIdentifier()) {
    std::string Marker =
        "L" + std::to_string(FD->getName().size()) + FD->getName().str();
    if (auto P = S.find(Marker); P != std::string::npos)
      S.erase(P, 1);
  }
  return S;
}

} // namespace

KernelNamer::KernelNamer(ASTContext &Ctx, const ArchConditionals *Arch)
    : Ctx(Ctx), Arch(Arch), MC(Ctx.createMangleContext()) {}
KernelNamer::~KernelNamer() = default;

const std::optional<std::string> &KernelNamer::moduleId() {
  if (!ModuleComputed) {
    SourceLocation Chosen;
    ModuleId = nvccModuleId(Ctx, *MC, ModuleIdInScope, Chosen);
    ModuleComputed = true;
    if (ModuleId && Arch)
      ModuleCaveat = hostViewCaveat(Chosen);
  }
  return ModuleId;
}

namespace {
/// \p L lies within \p Block (same file, from the start of its opening
/// directive's line to its #endif).
bool within(const SourceManager &SM, SourceRange Block, SourceLocation L) {
  auto [BFile, BBegin] = SM.getDecomposedExpansionLoc(Block.getBegin());
  auto [EFile, BEnd] = SM.getDecomposedExpansionLoc(Block.getEnd());
  auto [LFile, At] = SM.getDecomposedExpansionLoc(L);
  if (BFile != LFile || EFile != LFile)
    return false;
  bool Invalid = false;
  const unsigned Line = SM.getLineNumber(BFile, BBegin, &Invalid);
  if (Invalid)
    return false;
  const unsigned LineStart =
      SM.getDecomposedLoc(SM.translateLineCol(BFile, Line, 1)).second;
  return At >= LineStart && At <= BEnd;
}
} // namespace

Reason KernelNamer::hostViewCaveat(SourceLocation Chosen) const {
  const SourceManager &SM = Ctx.getSourceManager();
  auto Where = [&](SourceLocation L) {
    PresumedLoc P = SM.getPresumedLoc(SM.getExpansionLoc(L));
    return P.isValid() ? llvm::sys::path::filename(P.getFilename()).str() +
                             ":" + std::to_string(P.getLine())
                       : std::string("?");
  };
  // nvcc makes the module id on the host side's view of the unit
  // (`__CUDA_ARCH__` undefined); the parse is the device side's.
  for (SourceRange Block : Arch->Blocks)
    if (within(SM, Block, Chosen))
      return {ReasonKind::ModuleIdUnderArch,
              {Where(Chosen), Where(Block.getBegin())}};
  for (SourceLocation Skipped : Arch->SkippedDefinitions) {
    if (!SM.isBeforeInTranslationUnit(Skipped, Chosen))
      continue;
    for (SourceRange Block : Arch->Blocks)
      if (within(SM, Block, Skipped))
        return {ReasonKind::ModuleIdSkippedEarlier,
                {Where(Block.getBegin()), Where(Chosen)}};
  }
  return {};
}

const Reason &KernelNamer::moduleIdCaveat() {
  moduleId();
  return ModuleCaveat;
}

std::string KernelNamer::mangled(const FunctionDecl *Kernel) {
  std::string Name = ptxasName(*MC, Kernel, ModuleId);
  // Internal linkage (its own, or a template argument's) or an anonymous
  // namespace in the name: nvcc's spelling needs the module id, computed once
  // a unit, when the first such name asks for it.
  if (!ModuleComputed && (!Kernel->isExternallyVisible() ||
                          Name.find("12_GLOBAL__N_1") != std::string::npos))
    Name = ptxasName(*MC, Kernel, moduleId());
  return Name;
}

std::string KernelNamer::relocatableName(const FunctionDecl *Kernel,
                                         const std::string &Mangled) {
  if (Kernel->isExternallyVisible() || !moduleId())
    return "";
  return "__nv_static_" + std::to_string(ModuleId->size()) + "_" + *ModuleId +
         "_" + Mangled;
}

namespace {
/// What decides whether nvcc's name can be derived: whether names of internal
/// linkage are spelled as nvcc does (the module id is known), and the kernel
/// template's parameters.
struct DiffContext {
  bool Internal = false;
  const TemplateParameterList *KernelParams = nullptr;
};

/// Why nvcc's name for a kernel whose template arguments involve \p T cannot
/// be derived; none when it can.
Reason typeDiffers(QualType T, int Depth, const DiffContext &C);
bool substitutionsDiffer(const FunctionDecl *FD, const DiffContext &C);

Reason argumentDiffers(const TemplateArgument &A, int Depth,
                       const DiffContext &C) {
  if (Depth > 8)
    return {};
  switch (A.getKind()) {
  case TemplateArgument::Type:
    return typeDiffers(A.getAsType(), Depth + 1, C);
  case TemplateArgument::Declaration: {
    const ValueDecl *D = A.getAsDecl();
    if (D && !C.Internal && !D->isExternallyVisible() &&
        !D->isInAnonymousNamespace())
      return {ReasonKind::InternalArgument, {D->getNameAsString()}};
    if (const auto *FD = dyn_cast_or_null<FunctionDecl>(D);
        FD && substitutionsDiffer(FD, C))
      return {ReasonKind::FunctionArgumentSubstitutions,
              {FD->getNameAsString()}};
    return D ? typeDiffers(D->getType(), Depth + 1, C) : Reason();
  }
  case TemplateArgument::Pack:
    for (const TemplateArgument &P : A.pack_elements())
      if (Reason Why = argumentDiffers(P, Depth + 1, C); !Why.empty())
        return Why;
    return {};
  default:
    return {};
  }
}

/// Whether the template parameters of \p FD, a function template
/// specialization named in a kernel's name, are keyed differently by nvcc and
/// Clang: a member template of a class template (depth 1 or more as written),
/// or a parameter at the index of one of the kernel's that differs from it in
/// being a pack.
bool substitutionsDiffer(const FunctionDecl *FD, const DiffContext &C) {
  const FunctionTemplateDecl *Pattern = FD->getPrimaryTemplate();
  if (!Pattern)
    return false;
  while (const FunctionTemplateDecl *From =
             Pattern->getInstantiatedFromMemberTemplate())
    Pattern = From;
  const TemplateParameterList *Outer = Pattern->getTemplateParameters();
  if (Outer->getDepth() > 0)
    return true;
  if (C.KernelParams)
    for (unsigned I = 0; I < Outer->size() && I < C.KernelParams->size(); ++I)
      if (Outer->getParam(I)->isTemplateParameterPack() !=
          C.KernelParams->getParam(I)->isTemplateParameterPack())
        return true;
  return false;
}

Reason typeDiffers(QualType T, int Depth, const DiffContext &C) {
  if (T.isNull() || Depth > 8)
    return {};
  T = T.getCanonicalType();
  while (!T->getPointeeType().isNull())
    T = T->getPointeeType().getCanonicalType();
  const auto *RD = T->getAsCXXRecordDecl();
  if (!RD)
    return {};
  if (RD->isLambda()) {
    // nvcc (EDG) keys a template parameter's substitution by its depth in the
    // template as written and its index; Clang by its index and whether it is
    // a pack. They differ for a generic lambda, for a lambda of a member
    // template of a class template (depth 1 or more as written), and where the
    // kernel's and the enclosing template's parameters at one index differ in
    // being a pack (`template <typename F, typename... Args>` launched from
    // `template <typename T, typename U> void run`).
    const auto *FD = dyn_cast_or_null<FunctionDecl>(RD->getDeclContext());
    if (!FD || !FD->getPrimaryTemplate())
      return {};
    if (RD->isGenericLambda() || substitutionsDiffer(FD, C))
      return {ReasonKind::LambdaArgumentSubstitutions, {FD->getNameAsString()}};
    return {};
  }
  if (const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(RD))
    for (const TemplateArgument &A : Spec->getTemplateArgs().asArray())
      if (Reason Why = argumentDiffers(A, Depth + 1, C); !Why.empty())
        return Why;
  return {};
}
} // namespace

Reason KernelNamer::differsFromNvcc(const FunctionDecl *Kernel,
                                    const std::string &Mangled) {
  if (Mangled.find("12_GLOBAL__N_1") != std::string::npos)
    return ReasonKind::AnonymousNamespaceId;
  if (ModuleComputed && ModuleId && !ModuleCaveat.empty() &&
      Mangled.find(*ModuleId) != std::string::npos)
    return ModuleCaveat;
  if (const TemplateArgumentList *Args =
          Kernel->getTemplateSpecializationArgs())
    for (const TemplateArgument &A : Args->asArray())
      if (Reason Why = argumentDiffers(
              A, 0,
              DiffContext{
                  ModuleId.has_value(),
                  Kernel->getPrimaryTemplate()
                      ? Kernel->getPrimaryTemplate()->getTemplateParameters()
                      : nullptr});
          !Why.empty())
        return Why;
  return {};
}

} // namespace matchers
} // namespace tilefit
