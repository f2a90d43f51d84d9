//===- HeaderPch.cpp - The CUDA runtime headers, precompiled --------------===//
#include "tilefit/frontend/HeaderPch.h"
#include "tilefit/frontend/ResultCache.h"

#include "AtomicFile.h"
#include "CacheSpace.h"
#include "FilesRead.h"
#include "NvccOnlyCode.h"
#include "TraversalScope.h"

#include "tilefit/model/Checks.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Frontend/MultiplexConsumer.h"
#include "clang/Frontend/TextDiagnosticBuffer.h"
#include "clang/Lex/HeaderSearch.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Lex/PreprocessorOptions.h"
#include "clang/Sema/Sema.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <set>

using namespace llvm;

namespace tilefit {
namespace frontend {

const char *const CudaRuntimeWrapper = "__clang_cuda_runtime_wrapper.h";

namespace {

/// The options that decide the precompiled header: the invocation's, less what
/// belongs to the unit itself (its file, its name, its compilation id and
/// folder).
std::string keyOf(const clang::CompilerInvocation &CI) {
  std::vector<std::string> Args = CI.getCC1CommandLine();
  // The command line ends with the unit's own file (the invocation's input):
  // not part of it.
  std::set<std::string> Inputs;
  for (const clang::FrontendInputFile &In : CI.getFrontendOpts().Inputs)
    if (In.isFile())
      Inputs.insert(In.getFile().str());
  BLAKE3 H;
  H.update("tilefit-pch/1\n");
  H.update(ResultCache::toolIdentity());
  H.update("\n");
  for (size_t I = 0; I < Args.size(); ++I) {
    StringRef A = Args[I];
    if (Inputs.count(A.str()))
      continue;
    if (A == "-main-file-name" || A == "-fdebug-compilation-dir" || A == "-o") {
      ++I;
      continue;
    }
    if (A.starts_with("-cuid=") || A.starts_with("-fdebug-compilation-dir=") ||
        A.starts_with("-fcoverage-compilation-dir="))
      continue;
    H.update(A);
    H.update("\n");
  }
  // The unit's own file is the invocation's input: not part of the key. The
  // toolkit's headers are system headers, which Clang does not check against a
  // precompiled header: their size and time are part of the key, so that a
  // toolkit updated in place is precompiled anew.
  for (const auto &Entry : CI.getHeaderSearchOpts().UserEntries)
    for (const char *Name :
         {"cuda_runtime.h", "cuda_runtime_api.h", "cuda.h",
          "crt/host_defines.h", "__clang_cuda_runtime_wrapper.h"}) {
      SmallString<256> P(Entry.Path);
      sys::path::append(P, Name);
      sys::fs::file_status S;
      if (sys::fs::status(P, S) || !sys::fs::is_regular_file(S))
        continue;
      H.update(P);
      H.update(std::to_string(S.getSize()) + ":" +
               std::to_string(
                   S.getLastModificationTime().time_since_epoch().count()) +
               "\n");
    }
  // The files included ahead of the unit (tilefit's compatibility header among
  // them) are inside the precompiled header: one edited or replaced gives
  // another key, so that a stale header is never loaded (Clang would reject it,
  // and every parse of a unit with errors of its own would then pay for a
  // second parse).
  for (const std::string &Name : CI.getPreprocessorOpts().Includes) {
    sys::fs::file_status S;
    if (!sys::path::is_absolute(Name) || sys::fs::status(Name, S) ||
        !sys::fs::is_regular_file(S))
      continue;
    H.update(Name);
    H.update(
        std::to_string(S.getSize()) + ":" +
        std::to_string(S.getLastModificationTime().time_since_epoch().count()) +
        "\n");
  }
  auto R = H.final<16>();
  return toHex(R, /*LowerCase=*/true);
}

/// Where the list of a precompiled header's inputs is kept.
std::string inputsPath(const std::string &Pch) { return Pch + ".inputs"; }

/// Where a prefix keeps the record of what a parse that loads it visits
/// (recordPrefixScope).
std::string scopePath(const std::string &Pch) { return Pch + ".scope"; }

/// Where a prefix keeps a record of its declarations (HeaderPchStore::record),
/// made by the first parse that loads it.
std::string recordPath(const std::string &Pch, HeaderRecord Kind) {
  return Pch + (Kind == HeaderRecord::Slicing ? ".inv" : ".walk");
}

/// Removes the prefix's records.
void removeRecords(const std::string &Pch) {
  for (HeaderRecord Kind : {HeaderRecord::Slicing, HeaderRecord::Walk})
    sys::fs::remove(recordPath(Pch, Kind));
}

/// Where a prefix keeps what its preprocessor saw of the directives a parse
/// must see itself (PrefixDirectives).
std::string directivesPath(const std::string &Pch) { return Pch + ".pp"; }

/// Where a refused prefix keeps the files that made it so, with their sizes and
/// times.
std::string refusedPath(const std::string &Pch) { return Pch + ".refused"; }

std::string stamp(StringRef File) {
  sys::fs::file_status S;
  if (sys::fs::status(File, S))
    return "-";
  return std::to_string(S.getSize()) + ":" +
         std::to_string(S.getLastModificationTime().time_since_epoch().count());
}

/// Whether the prefix at \p Pch was refused by an earlier run and the files
/// that made it so are unchanged.
bool stillRefused(const std::string &Pch) {
  auto Buffer = MemoryBuffer::getFile(refusedPath(Pch));
  if (!Buffer)
    return false;
  SmallVector<StringRef, 0> Lines;
  (*Buffer)->getBuffer().split(Lines, '\n', -1, /*KeepEmpty=*/false);
  for (StringRef L : Lines) {
    auto [File, Stamp] = L.rsplit('\t');
    if (stamp(File) != Stamp)
      return false;
  }
  return true;
}

/// The record of PrefixDirectives: `skipped-host-calls 0|1`, then one line per
/// warning, `file<TAB>line<TAB>column<TAB>message`.
std::string writeDirectives(const PrefixDirectives &D) {
  std::string Out =
      std::string("skipped-host-calls ") + (D.SkippedHostCalls ? "1" : "0") +
      "\n";
  for (const Diagnostic &W : D.NvccOnly)
    Out += W.Loc.File + "\t" + std::to_string(W.Loc.Line) + "\t" +
           std::to_string(W.Loc.Column) + "\t" + W.Message + "\n";
  return Out;
}

PrefixDirectives readDirectives(StringRef Text) {
  PrefixDirectives D;
  SmallVector<StringRef, 0> Lines;
  Text.split(Lines, '\n', -1, /*KeepEmpty=*/false);
  for (StringRef L : Lines) {
    if (L.consume_front("skipped-host-calls ")) {
      D.SkippedHostCalls = L.trim() == "1";
      continue;
    }
    SmallVector<StringRef, 4> Parts;
    L.split(Parts, '\t', 3);
    unsigned Line = 0, Column = 0;
    if (Parts.size() != 4 || Parts[1].getAsInteger(10, Line) ||
        Parts[2].getAsInteger(10, Column))
      continue;
    Diagnostic W;
    W.Level = Severity::Warning;
    W.Check = std::string(checkInfo(CheckId::Input).Name);
    W.Loc = {Parts[0].str(), Line, Column};
    W.Message = Parts[3].str();
    D.NvccOnly.push_back(std::move(W));
  }
  return D;
}

/// Whether the system header \p Path may be included again after the prefix
/// that holds it, though Clang saw no include guard it could skip it by:
/// libstdc++'s headers put `#pragma GCC system_header` and an #include
/// before their `#ifndef`/`#define` guard (<cstdlib>, <cstdio>), and the C
/// standard's <assert.h> (<cassert>) is made to be included again.
bool systemHeaderIncludedTwiceSafely(StringRef Path) {
  const StringRef Name = sys::path::filename(Path);
  if (Name == "cassert" || Name == "assert.h")
    return true;
  auto Buffer = MemoryBuffer::getFile(Path);
  if (!Buffer)
    return false;
  // The first conditional directive is `#ifndef X`, and the next directive
  // `#define X`.
  SmallVector<StringRef, 0> Lines;
  (*Buffer)->getBuffer().split(Lines, '\n');
  StringRef Guard;
  for (StringRef L : Lines) {
    L = L.trim();
    if (!L.consume_front("#"))
      continue;
    L = L.ltrim();
    if (Guard.empty()) {
      if (L.starts_with("if") || L.starts_with("el") || L.starts_with("endif")) {
        if (!L.consume_front("ifndef"))
          return false;
        Guard = L.trim();
        if (Guard.empty())
          return false;
      }
      continue;
    }
    if (!L.consume_front("define"))
      return false;
    return L.trim().split(' ').first == Guard;
  }
  return false;
}

/// Watches the build of a prefix: which headers its #include lines name and
/// whether each has an include guard or `#pragma once`, and which project
/// headers (not system headers) stand behind them.
class PrefixWatcher : public clang::PPCallbacks {
public:
  PrefixWatcher(clang::Preprocessor &PP, std::vector<std::string> &Unguarded,
                std::vector<std::string> &ProjectFiles)
      : PP(PP), SM(PP.getSourceManager()), Unguarded(Unguarded),
        ProjectFiles(ProjectFiles) {}

  void InclusionDirective(clang::SourceLocation HashLoc, const clang::Token &,
                          StringRef, bool, clang::CharSourceRange,
                          clang::OptionalFileEntryRef File, StringRef,
                          StringRef, const clang::Module *, bool,
                          clang::SrcMgr::CharacteristicKind Kind) override {
    if (File && SM.getFileID(SM.getExpansionLoc(HashLoc)) == SM.getMainFileID())
      Direct.push_back({*File, Kind != clang::SrcMgr::C_User});
  }
  void FileChanged(clang::SourceLocation Loc, FileChangeReason Reason,
                   clang::SrcMgr::CharacteristicKind Kind,
                   clang::FileID) override {
    if (Reason != EnterFile)
      return;
    const clang::FileID F = SM.getFileID(Loc);
    const clang::SourceLocation From = SM.getIncludeLoc(F);
    if (From.isInvalid())
      return;
    const clang::FileID Parent = SM.getFileID(From);
    if (Parent != SM.getMainFileID() && !Behind.count(Parent))
      return;
    Behind.insert(F);
    if (Kind == clang::SrcMgr::C_User)
      if (auto Entry = SM.getFileEntryRefForID(F))
        ProjectFiles.push_back(Entry->getName().str());
  }
  void EndOfMainFile() override {
    for (const auto &[F, System] : Direct)
      if (!PP.getHeaderSearchInfo().isFileMultipleIncludeGuarded(F) &&
          !(System && systemHeaderIncludedTwiceSafely(F.getName())))
        Unguarded.push_back(F.getName().str());
  }

private:
  clang::Preprocessor &PP;
  const clang::SourceManager &SM;
  std::vector<std::string> &Unguarded, &ProjectFiles;
  /// The headers the prefix's lines name, and whether each is a system
  /// header.
  std::vector<std::pair<clang::FileEntryRef, bool>> Direct;
  std::set<clang::FileID> Behind;
};

/// Sema keeps its list of declarations to check for deferred diagnostics
/// private, and nothing public edits it; its address is taken through an
/// explicit instantiation, where access is not checked ([temp.explicit]p12).
/// A change of the member's type in a later Clang stops the build here.
using DeferredDiagsList = llvm::SmallSetVector<clang::Decl *, 4>;
struct DeferredDiagsOfSema {
  using Member = DeferredDiagsList clang::Sema::*;
  friend Member memberOf(DeferredDiagsOfSema);
};
template <typename Tag, typename Tag::Member M> struct MemberAccess {
  friend typename Tag::Member memberOf(Tag) { return M; }
};
template struct MemberAccess<DeferredDiagsOfSema,
                             &clang::Sema::DeclsToCheckForDeferredDiags>;

/// Runs before the precompiled header is written. It trims two lists of Sema's
/// that every unit loading the header would read back whole, deserializing
/// each declaration on them, for nothing:
///
/// - the declarations to check for deferred diagnostics (CUDA's diagnostics
///   that wait until a function is known to be emitted on the side parsed):
///   Clang lists every function definition there in CUDA mode, and reading
///   them back was a sixth of a small unit's parse. The system headers' leave
///   it. Nothing is lost: the header was built without an error, the deferred
///   diagnostics themselves are not serialized, and a unit's functions are
///   checked with what they call. The project's own headers keep theirs (a
///   kernel of theirs may call a function the unit defines);
/// - the file-scope declarations not used yet (for -Wunused-function and the
///   like, which speak only of the main file's): the system headers' leave it.
///
/// For a prefix it also records which top-level declarations a parse that
/// loads it visits (recordPrefixScope).
class BeforeWriting : public clang::ASTConsumer {
public:
  BeforeWriting(clang::CompilerInstance &CI, std::string *Scope)
      : CI(CI), Scope(Scope) {}
  void HandleTranslationUnit(clang::ASTContext &Ctx) override {
    if (Scope)
      *Scope = recordPrefixScope(Ctx);
    if (!CI.hasSema())
      return;
    clang::Sema &S = CI.getSema();
    const clang::SourceManager &SM = Ctx.getSourceManager();
    auto InSystemHeader = [&](const clang::Decl *D) {
      return SM.isInSystemHeader(SM.getExpansionLoc(D->getLocation()));
    };
    DeferredDiagsList &Deferred = S.*memberOf(DeferredDiagsOfSema());
    Deferred.remove_if(InSystemHeader);
    std::vector<const clang::DeclaratorDecl *> Unused;
    for (auto It = S.UnusedFileScopedDecls.begin(nullptr, /*LocalOnly=*/true),
              End = S.UnusedFileScopedDecls.end();
         It != End; ++It)
      if (!InSystemHeader(*It))
        Unused.push_back(*It);
    S.UnusedFileScopedDecls.erase(
        S.UnusedFileScopedDecls.begin(nullptr, /*LocalOnly=*/true),
        S.UnusedFileScopedDecls.end());
    for (const clang::DeclaratorDecl *D : Unused)
      S.UnusedFileScopedDecls.push_back(D);
  }

private:
  clang::CompilerInstance &CI;
  std::string *Scope;
};

/// Builds a precompiled header; for a prefix (\p PrefixFile, the unit of its
/// #include lines), watches what it includes and says whether the prefix may
/// stand for the units' own #include lines (acceptable).
class PrefixBuild : public clang::GeneratePCHAction {
public:
  explicit PrefixBuild(std::string PrefixFile)
      : PrefixFile(std::move(PrefixFile)) {}
  bool BeginSourceFileAction(clang::CompilerInstance &CI) override {
    if (!clang::GeneratePCHAction::BeginSourceFileAction(CI))
      return false;
    if (!PrefixFile.empty()) {
      clang::Preprocessor &PP = CI.getPreprocessor();
      PP.addPPCallbacks(
          std::make_unique<PrefixWatcher>(PP, Unguarded, ProjectFiles));
      // What a parse watches in the code it preprocesses itself (NvccOnlyCode.h),
      // watched here for the headers the prefix holds: the prefix is built
      // for one architecture and side, so the parse would see the same.
      watchNvccOnlyCode(PP, Directives.NvccOnly);
      watchSkippedHostCalls(PP, Directives.SkippedHostCalls);
    }
    return true;
  }
  /// The header's writer, after the consumer that trims what it writes.
  std::unique_ptr<clang::ASTConsumer>
  CreateASTConsumer(clang::CompilerInstance &CI, StringRef InFile) override {
    std::unique_ptr<clang::ASTConsumer> Writer =
        clang::GeneratePCHAction::CreateASTConsumer(CI, InFile);
    if (!Writer)
      return nullptr;
    std::vector<std::unique_ptr<clang::ASTConsumer>> Consumers;
    Consumers.push_back(std::make_unique<BeforeWriting>(
        CI, PrefixFile.empty() ? nullptr : &Scope));
    Consumers.push_back(std::move(Writer));
    return std::make_unique<clang::MultiplexConsumer>(std::move(Consumers));
  }
  /// No header of the prefix without a guard. (Directives a parse must see
  /// itself, on __CUDA_ARCH__ or a macro only nvcc defines, are watched while
  /// the prefix is built: Directives.)
  bool acceptable() const { return Why().empty(); }
  /// The files that make the prefix unacceptable.
  std::vector<std::string> Why() const { return Unguarded; }

  /// For a prefix: recordPrefixScope's record, once built.
  std::string Scope;
  /// For a prefix: what its preprocessor saw of those directives.
  PrefixDirectives Directives;

private:
  std::string PrefixFile;
  std::vector<std::string> Unguarded, ProjectFiles;
};

} // namespace

std::string HeaderPchStore::build(const clang::CompilerInvocation &Invocation,
                                  const std::string &Path,
                                  const std::vector<std::string> &Includes) {
  if (sys::fs::create_directories(Dir))
    return "";
  // An empty unit whose implicit include is the whole content; with a prefix,
  // a unit of its #include lines.
  SmallString<256> Empty(Dir);
  std::string Content;
  if (Includes.empty()) {
    sys::path::append(Empty, "empty.cu");
  } else {
    sys::path::append(Empty, sys::path::stem(Path) + ".cu");
    for (const std::string &Line : Includes)
      Content += Line + "\n";
  }
  if (!sys::fs::exists(Empty)) {
    int FD;
    SmallString<256> Temp;
    if (sys::fs::createUniqueFile(Twine(Empty) + ".%%%%%%.tmp", FD, Temp))
      return "";
    if (!Content.empty()) {
      raw_fd_ostream Out(FD, /*shouldClose=*/false);
      Out << Content;
    }
    // Two builds at once (two processes, or two jobs with a new set of options)
    // may each write it, and Clang records its time in the precompiled header
    // it builds: the same fixed time makes either file the one both recorded.
    const auto Fixed =
        sys::TimePoint<>(std::chrono::seconds(946684800)); // 2000-01-01
    sys::fs::setLastAccessAndModificationTime(FD, Fixed, Fixed);
    sys::fs::closeFile(FD);
    if (sys::fs::rename(Temp, Empty))
      sys::fs::remove(Temp);
  }
  SmallString<256> Temp;
  int FD;
  if (sys::fs::createUniqueFile(Path + ".%%%%%%%%.tmp", FD, Temp))
    return "";
  sys::fs::closeFile(FD);

  auto CI = std::make_shared<clang::CompilerInvocation>(Invocation);
  clang::FrontendOptions &FO = CI->getFrontendOpts();
  FO.Inputs.clear();
  FO.Inputs.emplace_back(
      std::string(Empty),
      Invocation.getFrontendOpts().Inputs.empty()
          ? clang::InputKind(clang::Language::CUDA)
          : Invocation.getFrontendOpts().Inputs[0].getKind());
  FO.OutputFile = std::string(Temp);
  FO.ProgramAction = clang::frontend::GeneratePCH;
  CI->getPreprocessorOpts().ImplicitPCHInclude.clear();
  // The implicit instantiations the headers need are done once, here, and kept
  // in the precompiled header, instead of at the end of every unit that loads
  // it (Clang defers them out of a precompiled header unless told otherwise:
  // -fpch-instantiate-templates, a benign language option).
  CI->getLangOpts().PCHInstantiateTemplates = true;

  clang::CompilerInstance Compiler;
  Compiler.setInvocation(CI);
  clang::TextDiagnosticBuffer Diags;
  Compiler.createDiagnostics(&Diags, /*ShouldOwnClient=*/false);
  if (!Compiler.hasDiagnostics())
    return "";
  PrefixBuild Action(Includes.empty() ? "" : std::string(Empty));
  bool Ok = Compiler.ExecuteAction(Action) &&
            !Compiler.getDiagnostics().hasErrorOccurred() &&
            Compiler.hasSourceManager() && Action.acceptable();
  // What it read, beside it (written first: a header without its list is built
  // again).
  if (Ok) {
    std::string List;
    for (const std::string &File : filesRead(Compiler.getSourceManager()))
      if (File != std::string(Empty))
        List += File + "\n";
    Ok = writeFileAtomically(inputsPath(Path), List);
    // A prefix without its record is still used: its parses then read every
    // declaration it holds to choose what they visit.
    if (Ok && !Includes.empty()) {
      writeFileAtomically(scopePath(Path), Action.Scope);
      // Without its record of the directives, a prefix is not used: the
      // parse would miss what they skip.
      Ok = writeFileAtomically(directivesPath(Path),
                               writeDirectives(Action.Directives));
    }
  }
  if (!Includes.empty() && !Action.acceptable()) {
    // Refused: remembered with the files that made it so.
    std::string List;
    for (const std::string &File : Action.Why())
      List += File + "\t" + stamp(File) + "\n";
    writeFileAtomically(refusedPath(Path), List);
  }
  // A record made for the header this one replaces names other IDs.
  removeRecords(Path);
  if (!Ok || sys::fs::rename(Temp, Path)) {
    sys::fs::remove(Temp);
    cachespace::recount(Dir);
    return "";
  }
  // Counted for the cache's size bound (CacheSpace.h).
  cachespace::recount(Dir);
  return Path;
}

std::vector<std::string> HeaderPchStore::inputs(const std::string &Path) {
  std::lock_guard<std::mutex> Guard(Lock);
  auto It = Inputs.find(Path);
  if (It != Inputs.end())
    return It->second;
  std::vector<std::string> Files;
  if (auto Buffer = MemoryBuffer::getFile(inputsPath(Path))) {
    SmallVector<StringRef, 0> Lines;
    (*Buffer)->getBuffer().split(Lines, '\n', -1, /*KeepEmpty=*/false);
    for (StringRef L : Lines)
      Files.push_back(L.str());
  }
  Inputs[Path] = Files;
  return Files;
}

std::string HeaderPchStore::scope(const std::string &Path) {
  std::lock_guard<std::mutex> Guard(Lock);
  auto It = Scopes.find(Path);
  if (It != Scopes.end())
    return It->second;
  std::string Record;
  if (auto Buffer = MemoryBuffer::getFile(scopePath(Path), /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false))
    Record = (*Buffer)->getBuffer().str();
  Scopes[Path] = Record;
  return Record;
}

std::string HeaderPchStore::record(const std::string &Path, HeaderRecord Kind) {
  // Not kept in memory: the first parse of a run may store it, and the
  // record is read once per parse. It names the header's declarations by
  // their IDs, which only that very header gives them: it starts with the
  // header's stamp.
  auto Buffer = MemoryBuffer::getFile(recordPath(Path, Kind), /*IsText=*/false,
                                      /*RequiresNullTerminator=*/false);
  if (!Buffer)
    return "";
  StringRef Bytes = (*Buffer)->getBuffer();
  const std::string Stamp = stamp(Path) + "\n";
  if (!Bytes.consume_front(Stamp))
    return "";
  return Bytes.str();
}

void HeaderPchStore::storeRecord(const std::string &Path, HeaderRecord Kind,
                                 const std::string &Record) {
  if (Record.empty() || stamp(Path) == "-")
    return;
  writeFileAtomically(recordPath(Path, Kind), stamp(Path) + "\n" + Record);
  cachespace::recount(Dir);
}

PrefixDirectives HeaderPchStore::directives(const std::string &Path) {
  std::lock_guard<std::mutex> Guard(Lock);
  auto It = Directives.find(Path);
  if (It != Directives.end())
    return It->second;
  PrefixDirectives D;
  if (auto Buffer = MemoryBuffer::getFile(directivesPath(Path)))
    D = readDirectives((*Buffer)->getBuffer());
  Directives[Path] = D;
  return D;
}

void HeaderPchStore::discard(const std::string &Path) {
  {
    std::lock_guard<std::mutex> Guard(Lock);
    for (auto &[Key, Built] : Keys)
      if (Built == Path)
        Built = "-"; // Not again in this run.
  }
  sys::fs::remove(Path);
  sys::fs::remove(inputsPath(Path));
  sys::fs::remove(scopePath(Path));
  sys::fs::remove(directivesPath(Path));
  removeRecords(Path);
  cachespace::recount(Dir);
}

std::string HeaderPchStore::obtain(const clang::CompilerInvocation &Invocation,
                                   const std::string &Key,
                                   const std::string &Path,
                                   const std::vector<std::string> &Includes) {
  std::string Result;
  {
    std::lock_guard<std::mutex> Guard(Lock);
    Result = Keys[Key];
  }
  if (Result.empty()) {
    // Built by an earlier run, or now. Not under the lock: a crash in Clang
    // (contained by the caller's CrashRecoveryContext, which runs no
    // destructor) must not leave it held. Two parses with the same key at once
    // may both build; the renames are atomic. A prefix refused by an earlier
    // run stays refused while the files that made it so are unchanged.
    if (sys::fs::exists(Path) && sys::fs::exists(inputsPath(Path)))
      Result = Path;
    else if (!Includes.empty() && stillRefused(Path))
      Result = "";
    else
      Result = build(Invocation, Path, Includes);
    if (Result.empty())
      Result = "-"; // Could not: do not try again in this run.
    std::lock_guard<std::mutex> Guard(Lock);
    Keys[Key] = Result;
  }
  return Result == "-" ? "" : Result;
}

std::string HeaderPchStore::use(clang::CompilerInvocation &Invocation) {
  return use(Invocation, {});
}

std::string HeaderPchStore::use(clang::CompilerInvocation &Invocation,
                                const std::vector<std::string> &Includes) {
  clang::PreprocessorOptions &PP = Invocation.getPreprocessorOpts();
  auto It =
      std::find(PP.Includes.begin(), PP.Includes.end(), CudaRuntimeWrapper);
  if (It == PP.Includes.end() || !PP.ImplicitPCHInclude.empty())
    return "";
  // The wrapper must be the first implicit include: what comes before it would
  // be missing.
  if (It != PP.Includes.begin())
    return "";
  const std::string Key = keyOf(Invocation);
  std::string Result;
  if (!Includes.empty()) {
    // The prefix's key: the options' and its lines (a quoted include found
    // beside the unit is written with its folder, so the lines tell the
    // headers apart).
    BLAKE3 H;
    H.update(Key);
    for (const std::string &Line : Includes) {
      H.update("\n");
      H.update(Line);
    }
    const std::string PrefixKey =
        "prefix-" + toHex(H.final<16>(), /*LowerCase=*/true);
    SmallString<256> Path(Dir);
    sys::path::append(Path, PrefixKey + ".pch");
    Result = obtain(Invocation, PrefixKey, std::string(Path), Includes);
  }
  if (Result.empty()) {
    SmallString<256> Path(Dir);
    sys::path::append(Path, Key + ".pch");
    Result = obtain(Invocation, Key, std::string(Path), {});
  }
  if (Result.empty())
    return "";
  PP.Includes.erase(PP.Includes.begin());
  PP.ImplicitPCHInclude = Result;
  // Clang checks the precompiled header's inputs against the files on disk, the
  // system headers too (the CUDA and C++ headers are system headers): one
  // changed since it was built makes the parse fail, and the caller parses
  // again without it and discards it.
  Invocation.getHeaderSearchOpts().ModulesValidateSystemHeaders = true;
  return Result;
}

} // namespace frontend
} // namespace tilefit
