//===- PreambleStore.cpp - Per-file precompiled preambles -----------------===//
#include "tilefit/frontend/PreambleStore.h"

#include "FilesRead.h"
#include "NvccOnlyCode.h"

#include "clang/Basic/Diagnostic.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Frontend/PrecompiledPreamble.h"
#include "clang/Lex/PreprocessorOptions.h"
#include "clang/Serialization/PCHContainerOperations.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/VirtualFileSystem.h"

#include <algorithm>
#include <optional>

using namespace llvm;

namespace tilefit {
namespace frontend {

class Preamble {
public:
  std::optional<clang::PrecompiledPreamble> PCH;
  /// Building reported an error: a parse reusing the preamble would not report
  /// it again, so the preamble is kept only to know when to build anew
  /// (CanReuse), never loaded.
  bool HadErrors = false;
  std::vector<std::string> Inputs;
  std::string
      UnsavedDigest; ///< Of the unsaved buffers among the inputs, when built.
  std::string FailedText; ///< Build failed for this preamble text (no PCH).
  /// PreambleStore::record; parses on other threads may load it.
  mutable std::mutex RecordLock;
  mutable std::string Records[HeaderRecordKinds];
};

std::string PreambleStore::record(const Preamble &P, HeaderRecord Kind) {
  std::lock_guard<std::mutex> G(P.RecordLock);
  return P.Records[static_cast<unsigned>(Kind)];
}

void PreambleStore::storeRecord(const Preamble &P, HeaderRecord Kind,
                                const std::string &Record) {
  std::lock_guard<std::mutex> G(P.RecordLock);
  P.Records[static_cast<unsigned>(Kind)] = Record;
}

struct PreambleStore::Slot {
  std::string Key;
  /// Guards Current. Never held while Clang runs: a crash there (contained by
  /// the caller's CrashRecoveryContext, which runs no destructor) must not
  /// leave it locked.
  std::mutex Guard;
  std::shared_ptr<Preamble> Current;
};

namespace {

/// Notes the files the preamble read; the parse that loads it does not open
/// them.
class InputsCallbacks : public clang::PreambleCallbacks {
public:
  explicit InputsCallbacks(std::vector<std::string> &Inputs) : Inputs(Inputs) {}
  void AfterExecute(clang::CompilerInstance &CI) override {
    Inputs = filesRead(CI.getSourceManager());
  }

private:
  std::vector<std::string> &Inputs;
};

std::string keyOf(const clang::CompilerInvocation &CI) {
  BLAKE3 H;
  H.update("tilefit-preamble/1\n");
  for (const std::string &A : CI.getCC1CommandLine()) {
    H.update(A);
    H.update("\n");
  }
  auto R = H.final<16>();
  return toHex(R, /*LowerCase=*/true);
}

/// The text of the unsaved buffers that are among \p Inputs (sorted real
/// paths), but the main file (whose preamble bytes Clang compares itself).
std::string unsavedDigest(const std::map<std::string, std::string> &Unsaved,
                          const std::vector<std::string> &Inputs,
                          StringRef Main) {
  BLAKE3 H;
  for (const auto &[Path, Text] : Unsaved) {
    if (Path == Main)
      continue;
    SmallString<256> Real;
    if (sys::fs::real_path(Path, Real))
      Real = Path;
    if (!std::binary_search(Inputs.begin(), Inputs.end(), std::string(Real)) &&
        !std::binary_search(Inputs.begin(), Inputs.end(), Path))
      continue;
    H.update(Path);
    H.update("\n" + std::to_string(Text.size()) + "\n");
    H.update(Text);
  }
  auto R = H.final<16>();
  return toHex(R, /*LowerCase=*/true);
}

std::shared_ptr<Preamble> build(const clang::CompilerInvocation &Invocation,
                                const MemoryBuffer &Main,
                                clang::PreambleBounds Bounds,
                                IntrusiveRefCntPtr<vfs::FileSystem> FS) {
  auto P = std::make_shared<Preamble>();
  // The invocation's diagnostic options (-w, the error limit); only the count
  // matters.
  clang::IgnoringDiagConsumer Quiet;
  IntrusiveRefCntPtr<clang::DiagnosticOptions> Options =
      new clang::DiagnosticOptions(Invocation.getDiagnosticOpts());
  IntrusiveRefCntPtr<clang::DiagnosticsEngine> Diags =
      clang::CompilerInstance::createDiagnostics(Options.get(), &Quiet,
                                                 /*ShouldOwnClient=*/false);
  InputsCallbacks Callbacks(P->Inputs);
  // Function bodies are parsed (clangd skips them; the walks need them), and
  // the preamble is kept in memory: the language server writes no file.
  ErrorOr<clang::PrecompiledPreamble> Built = clang::PrecompiledPreamble::Build(
      Invocation, &Main, Bounds, *Diags, FS,
      std::make_shared<clang::PCHContainerOperations>(),
      /*StoreInMemory=*/true, /*StoragePath=*/"", Callbacks);
  if (!Built) {
    P->FailedText = Main.getBuffer().take_front(Bounds.Size).str();
    return P;
  }
  P->HadErrors = Diags->hasErrorOccurred();
  P->PCH.emplace(std::move(*Built));
  return P;
}

} // namespace

PreambleStore::PreambleStore(size_t Capacity)
    : Capacity(Capacity ? Capacity : 1) {}
PreambleStore::~PreambleStore() = default;

std::shared_ptr<PreambleStore::Slot>
PreambleStore::slotFor(const std::string &Key) {
  std::lock_guard<std::mutex> Guard(Lock);
  for (auto It = Slots.begin(); It != Slots.end(); ++It)
    if ((*It)->Key == Key) {
      Slots.splice(Slots.begin(), Slots, It);
      return Slots.front();
    }
  auto S = std::make_shared<Slot>();
  S->Key = Key;
  Slots.push_front(S);
  // A parse still holding a dropped slot's preamble keeps it alive until it
  // ends.
  while (Slots.size() > Capacity)
    Slots.pop_back();
  return S;
}

std::shared_ptr<const Preamble>
PreambleStore::use(clang::CompilerInvocation &Invocation,
                   IntrusiveRefCntPtr<vfs::FileSystem> &FS,
                   const std::map<std::string, std::string> &Unsaved) {
  const auto &Inputs = Invocation.getFrontendOpts().Inputs;
  if (Inputs.size() != 1 || !Inputs[0].isFile() ||
      !Invocation.getPreprocessorOpts().ImplicitPCHInclude.empty())
    return nullptr;
  ErrorOr<std::unique_ptr<MemoryBuffer>> Text =
      FS->getBufferForFile(Inputs[0].getFile());
  if (!Text)
    return nullptr;
  clang::PreambleBounds Bounds = clang::ComputePreambleBounds(
      Invocation.getLangOpts(), (*Text)->getMemBufferRef(), 0);
  // A block under `#ifdef __NVCC__` at the top of the file: the preamble stops
  // before it, so that the parse sees the directive and can say what the
  // skipped block holds.
  if (size_t Nvcc = firstNvccOnlyConditional(
          (*Text)->getBuffer().take_front(Bounds.Size));
      Nvcc != StringRef::npos)
    Bounds = clang::PreambleBounds(static_cast<unsigned>(Nvcc),
                                   /*PreambleEndsAtStartOfLine=*/true);
  const std::string Main = Inputs[0].getFile().str();
  std::shared_ptr<Slot> S = slotFor(keyOf(Invocation));
  std::shared_ptr<Preamble> P;
  {
    std::lock_guard<std::mutex> Guard(S->Guard);
    P = S->Current;
  }
  const bool Reusable =
      P &&
      (P->PCH ? P->PCH->CanReuse(Invocation, (*Text)->getMemBufferRef(), Bounds,
                                 *FS) &&
                    P->UnsavedDigest == unsavedDigest(Unsaved, P->Inputs, Main)
              : P->FailedText == (*Text)->getBuffer().take_front(Bounds.Size));
  if (Reusable) {
    ++Reuses;
  } else {
    // Two parses of the same file and options at once may both build; the last
    // one stays.
    P = build(Invocation, **Text, Bounds, FS);
    P->UnsavedDigest = unsavedDigest(Unsaved, P->Inputs, Main);
    ++Builds;
    std::lock_guard<std::mutex> Guard(S->Guard);
    S->Current = P;
  }
  if (!P->PCH || P->HadErrors)
    return nullptr;
  // The source manager takes the buffer over (the invocation's remapped files).
  P->PCH->AddImplicitPreamble(Invocation, FS, Text->release());
  ++Loads;
  return P;
}

const std::vector<std::string> &PreambleStore::inputs(const Preamble &P) {
  return P.Inputs;
}

void PreambleStore::discard(const std::shared_ptr<const Preamble> &P) {
  std::lock_guard<std::mutex> Guard(Lock);
  for (const std::shared_ptr<Slot> &S : Slots) {
    std::lock_guard<std::mutex> Guard(S->Guard);
    if (S->Current == P)
      S->Current = nullptr;
  }
}

} // namespace frontend
} // namespace tilefit
