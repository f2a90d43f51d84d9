//===- TraversalScope.cpp - What a parse over a precompiled header visits -===//
#include "TraversalScope.h"

#include "tilefit/frontend/HeaderPch.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExternalASTSource.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Serialization/ASTReader.h"
#include "llvm/Support/LEB128.h"
#include "llvm/Support/Path.h"

namespace tilefit {
namespace frontend {

namespace {
/// The record's first line; one byte of kind and one of choice per declaration
/// follow.
constexpr llvm::StringLiteral Magic = "tilefit-prefix-scope/1\n";
} // namespace

bool includedFrom(const clang::SourceManager &SM, clang::SourceLocation Loc,
                  llvm::function_ref<bool(llvm::StringRef)> IsRoot,
                  llvm::DenseMap<clang::FileID, bool> &Known) {
  if (Loc.isInvalid())
    return false;
  clang::FileID First = SM.getFileID(SM.getExpansionLoc(Loc));
  if (auto It = Known.find(First); It != Known.end())
    return It->second;
  bool Result = false;
  for (clang::FileID F = First; F.isValid();) {
    if (auto Entry = SM.getFileEntryRefForID(F);
        Entry && IsRoot(Entry->getName())) {
      Result = true;
      break;
    }
    clang::SourceLocation Included = SM.getIncludeLoc(F);
    if (Included.isInvalid())
      break;
    F = SM.getFileID(SM.getExpansionLoc(Included));
  }
  Known[First] = Result;
  return Result;
}

bool fromRuntimeHeaders(const clang::SourceManager &SM,
                        clang::SourceLocation Loc,
                        llvm::DenseMap<clang::FileID, bool> &Known) {
  return includedFrom(
      SM, Loc,
      [](llvm::StringRef Name) {
        return llvm::sys::path::filename(Name) == CudaRuntimeWrapper;
      },
      Known);
}

std::string recordPrefixScope(clang::ASTContext &Ctx) {
  std::string Out(Magic);
  const clang::SourceManager &SM = Ctx.getSourceManager();
  llvm::DenseMap<clang::FileID, bool> Runtime;
  // The precompiled header lists the unit's top-level declarations in this
  // order (those read from another AST file aside: none here, the prefix is
  // built from source).
  for (const clang::Decl *D : Ctx.getTranslationUnitDecl()->noload_decls()) {
    if (D->isFromASTFile())
      continue;
    static_assert(clang::Decl::lastDecl < 256, "a kind is one byte");
    Out += static_cast<char>(D->getKind());
    Out += fromRuntimeHeaders(SM, D->getLocation(), Runtime) ? '0' : '1';
  }
  return Out;
}

bool prefixTraversalScope(clang::ASTContext &Ctx, llvm::StringRef Recorded,
                          std::vector<clang::Decl *> &Out) {
  clang::TranslationUnitDecl *TU = Ctx.getTranslationUnitDecl();
  clang::ExternalASTSource *Source = Ctx.getExternalSource();
  if (!Source || !TU->hasExternalLexicalStorage() ||
      !Recorded.consume_front(Magic) || Recorded.size() % 2 != 0)
    return false;
  // The reader hands each top-level declaration's kind to the filter, in the
  // header's order, and reads only those it keeps. Every kind must be the one
  // recorded, and every declaration seen once, or the record is not this
  // header's.
  size_t Next = 0;
  bool Fits = true;
  llvm::SmallVector<clang::Decl *, 0> Prefix;
  Source->FindExternalLexicalDecls(
      TU,
      [&](clang::Decl::Kind K) {
        if (!Fits || 2 * Next >= Recorded.size() ||
            static_cast<unsigned char>(Recorded[2 * Next]) !=
                static_cast<unsigned>(K)) {
          Fits = false;
          return false;
        }
        return Recorded[2 * Next++ + 1] == '1';
      },
      Prefix);
  if (!Fits || 2 * Next != Recorded.size())
    return false;
  // Then the parse's own, as Clang lists them after the header's.
  for (clang::Decl *D : TU->noload_decls())
    if (!D->isFromASTFile())
      Prefix.push_back(D);
  Out.assign(Prefix.begin(), Prefix.end());
  return true;
}

namespace {

/// The header walk's record (recordHeaderWalk): the magic, the number of
/// declarations of the header it was made with, then each top-level namespace
/// of the scope as its ID, its kind and its members. A member is its kind, its
/// tag, its ID; a template also the ID of its first declaration, a nested
/// namespace its own members. A count precedes each list of members; numbers
/// are ULEB128.
constexpr llvm::StringLiteral WalkMagic = "tilefit-header-walk/1\n";

/// Tags: a member visited always, a template visited where this parse read it,
/// a nested namespace.
constexpr char Always = 'A', Template = 'T', Nested = 'N';

bool isNamespace(const clang::Decl *D) {
  return llvm::isa<clang::NamespaceDecl, clang::LinkageSpecDecl>(D);
}

uint64_t idOf(const clang::Decl *D) { return D->getGlobalID().getRawValue(); }

/// Whether \p T has a specialization the header made: the parses visit it
/// whether they read the template or not.
bool specializedInHeader(const clang::TemplateDecl *T) {
  auto Any = [](auto Specs) {
    for (const clang::Decl *S : Specs)
      if (S->isFromASTFile())
        return true;
    return false;
  };
  if (const auto *C = llvm::dyn_cast<clang::ClassTemplateDecl>(T))
    return Any(C->specializations());
  if (const auto *F = llvm::dyn_cast<clang::FunctionTemplateDecl>(T))
    return Any(F->specializations());
  if (const auto *V = llvm::dyn_cast<clang::VarTemplateDecl>(T))
    return Any(V->specializations());
  return false;
}

void writeMembers(const clang::DeclContext *DC, std::string &Out) {
  llvm::SmallVector<const clang::Decl *, 0> Members;
  for (const clang::Decl *M : DC->decls())
    // The parse's own additions (implicit deduction guides, say) are not the
    // header's: each parse lists its own (flattenHeaderWalk). A templated
    // declaration that is not a template is skipped by every walk.
    if (M->isFromASTFile() &&
        (llvm::isa<clang::TemplateDecl>(M) || !M->isTemplated()))
      Members.push_back(M);
  llvm::raw_string_ostream OS(Out);
  llvm::encodeULEB128(Members.size(), OS);
  for (const clang::Decl *M : Members) {
    OS << static_cast<char>(M->getKind());
    const auto *T = llvm::dyn_cast<clang::TemplateDecl>(M);
    const char Tag = isNamespace(M)                 ? Nested
                     : T && !specializedInHeader(T) ? Template
                                                    : Always;
    OS << Tag;
    llvm::encodeULEB128(idOf(M), OS);
    if (Tag == Template)
      llvm::encodeULEB128(idOf(M->getCanonicalDecl()), OS);
    else if (Tag == Nested)
      writeMembers(llvm::cast<clang::DeclContext>(M), Out);
  }
}

/// One namespace or member of the record, parsed.
struct WalkEntry {
  uint64_t Id = 0, First = 0;
  unsigned Kind = 0;
  char Tag = Always;
  /// A namespace's members: Entries[Begin, End).
  size_t Begin = 0, End = 0;
};

class WalkReader {
public:
  explicit WalkReader(llvm::StringRef Bytes)
      : Pos(Bytes.bytes_begin()), End(Bytes.bytes_end()) {}

  bool number(uint64_t &N) {
    const char *Error = nullptr;
    unsigned Size = 0;
    N = llvm::decodeULEB128(Pos, &Size, End, &Error);
    Pos += Size;
    return !Error;
  }
  bool byte(unsigned &B) {
    if (Pos == End)
      return false;
    B = *Pos++;
    return true;
  }
  bool done() const { return Pos == End; }

  /// Reads \p Entry's members into Entries.
  bool members(size_t Entry, unsigned Depth = 0) {
    uint64_t Count = 0;
    if (Depth > 256 || !number(Count) ||
        Count > static_cast<uint64_t>(End - Pos))
      return false;
    const size_t Begin = Entries.size();
    Entries.resize(Begin + Count);
    Entries[Entry].Begin = Begin;
    Entries[Entry].End = Begin + Count;
    for (size_t I = Begin; I != Begin + Count; ++I) {
      unsigned Tag = 0;
      if (!byte(Entries[I].Kind) || !byte(Tag) || !number(Entries[I].Id))
        return false;
      Entries[I].Tag = static_cast<char>(Tag);
      if (Tag == Template ? !number(Entries[I].First)
          : Tag == Nested ? !members(I, Depth + 1)
                          : Tag != Always)
        return false;
    }
    return true;
  }

  std::vector<WalkEntry> Entries;

private:
  const uint8_t *Pos;
  const uint8_t *End;
};

/// Whether \p Id can name a declaration of the AST file that holds \p Near:
/// the reader would index past its tables with one that cannot.
bool plausible(clang::ASTReader &Reader, uint64_t Id, const clang::Decl *Near) {
  return Id >> 32 == idOf(Near) >> 32 &&
         (Id & 0xffffffffu) <
             uint64_t(Reader.getTotalNumDecls()) + clang::NUM_PREDEF_DECL_IDS;
}

/// Appends what the walks visit of the namespace \p DC, recorded as \p E.
bool expand(clang::ASTReader &Reader, const std::vector<WalkEntry> &Entries,
            const WalkEntry &E, const clang::DeclContext *DC,
            std::vector<clang::Decl *> &Out) {
  for (size_t I = E.Begin; I != E.End; ++I) {
    const WalkEntry &M = Entries[I];
    const auto *Near = llvm::cast<clang::Decl>(DC);
    if (!plausible(Reader, M.Id, Near) ||
        (M.Tag == Template && !plausible(Reader, M.First, Near)))
      return false;
    // A template no part of this parse read has no specialization but the
    // header's (Sema reads a template's first declaration with any other).
    if (M.Tag == Template &&
        !Reader.GetExistingDecl(clang::GlobalDeclID(M.Id)) &&
        !Reader.GetExistingDecl(clang::GlobalDeclID(M.First)))
      continue;
    clang::Decl *D = Reader.GetDecl(clang::GlobalDeclID(M.Id));
    if (!D || D->getKind() != M.Kind)
      return false;
    if (M.Tag != Nested)
      Out.push_back(D);
    else if (!isNamespace(D) || !expand(Reader, Entries, M,
                                        llvm::cast<clang::DeclContext>(D), Out))
      return false;
  }
  // Then what the parse added itself, as Clang lists it after the header's.
  for (clang::Decl *D : DC->noload_decls())
    if (!D->isFromASTFile())
      Out.push_back(D);
  return true;
}

} // namespace

std::string recordHeaderWalk(clang::ASTReader &Reader,
                             llvm::ArrayRef<clang::Decl *> Scope) {
  std::string Out(WalkMagic);
  llvm::raw_string_ostream OS(Out);
  llvm::encodeULEB128(Reader.getTotalNumDecls(), OS);
  bool Any = false;
  for (const clang::Decl *D : Scope) {
    if (!D->isFromASTFile() || !isNamespace(D))
      continue;
    static_assert(clang::Decl::lastDecl < 256, "a kind is one byte");
    llvm::encodeULEB128(idOf(D), OS);
    OS << static_cast<char>(D->getKind());
    writeMembers(llvm::cast<clang::DeclContext>(D), Out);
    Any = true;
  }
  return Any ? Out : std::string();
}

bool flattenHeaderWalk(clang::ASTReader &Reader, llvm::StringRef Recorded,
                       llvm::ArrayRef<clang::Decl *> Scope,
                       std::vector<clang::Decl *> &Out) {
  if (!Recorded.consume_front(WalkMagic))
    return false;
  WalkReader In(Recorded);
  uint64_t Decls = 0;
  // The same number of declarations as the header it was made with: the IDs
  // are in range (the store's stamp already tells one header from another).
  if (!In.number(Decls) || Decls != Reader.getTotalNumDecls())
    return false;
  llvm::DenseMap<uint64_t, size_t> Top;
  while (!In.done()) {
    const size_t I = In.Entries.size();
    In.Entries.emplace_back();
    if (!In.number(In.Entries[I].Id) || !In.byte(In.Entries[I].Kind) ||
        !In.members(I))
      return false;
    Top[In.Entries[I].Id] = I;
  }
  std::vector<clang::Decl *> Flat;
  for (clang::Decl *D : Scope) {
    auto It =
        D->isFromASTFile() && isNamespace(D) ? Top.find(idOf(D)) : Top.end();
    if (It == Top.end()) {
      Flat.push_back(D);
      continue;
    }
    const WalkEntry &E = In.Entries[It->second];
    if (E.Kind != D->getKind() ||
        !expand(Reader, In.Entries, E, llvm::cast<clang::DeclContext>(D), Flat))
      return false;
  }
  Out = std::move(Flat);
  return true;
}

} // namespace frontend
} // namespace tilefit
