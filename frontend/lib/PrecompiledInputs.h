//===- PrecompiledInputs.h - What a parse loads instead of parsing -*- C++ -*-===//
//
// The fast paths of a parse: the precompiled CUDA runtime headers, a
// precompiled prefix of the unit's #include lines (HeaderPch.h), or the
// language server's preamble (PreambleStore.h). PchActionFactory chooses one
// for a parse, tells the parse's action what it loaded, says when a failed
// parse is to run again without it, and forgets it when it was at fault.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_FRONTEND_PRECOMPILEDINPUTS_H
#define TILEFIT_FRONTEND_PRECOMPILEDINPUTS_H

#include "ParseActions.h"

#include "tilefit/frontend/Parse.h"
#include "tilefit/frontend/HeaderPch.h"
#include "tilefit/frontend/PreambleStore.h"

#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tilefit {
namespace frontend {

/// Takes out of a parse's invocation whatever would load code or write a file,
/// however the command spelt it (-Xclang, -Xpreprocessor, a driver alias):
/// dependency files, header lists, statistics, time traces, diagnostic logs and
/// serialized diagnostics, plugins and LLVM options. The command translation
/// refuses the usual spellings aloud; this is the guarantee.
void makeReadOnly(clang::CompilerInvocation &Inv);

/// Runs the actions \p Create makes (told what the parse loads),
/// loading the file's preamble when \p Env has a store for them, else the
/// precompiled CUDA runtime headers when it has a store for those.
class PchActionFactory : public clang::tooling::FrontendActionFactory {
public:
  /// \p SharedIncludes: the unit's #include lines to load precompiled with
  /// the runtime headers (UnitJob::SharedIncludes).
  PchActionFactory(
      std::function<std::unique_ptr<clang::FrontendAction>(LoadedHeaders)>
          Create,
      const ParseEnvironment &Env, std::vector<std::string> SharedIncludes = {})
      : Create(std::move(Create)), Store(Env.Pch), Preambles(Env.Preambles),
        Unsaved(Env.Unsaved), SharedIncludes(std::move(SharedIncludes)),
        FastPathStarts(Env.FastPathStarts) {}
  /// The action is told whether what the parse loads holds the file's own
  /// headers (a preamble, or a precompiled prefix of its #include lines): its
  /// traversal then covers them; for a prefix, with its record of what to
  /// visit.
  std::unique_ptr<clang::FrontendAction> create() override {
    if (loadedAnything() && FastPathStarts)
      FastPathStarts();
    LoadedHeaders Loaded;
    if (UsedPreamble) {
      Loaded.OwnHeaders = true;
      Loaded.LoadRecord = [P = UsedPreamble](HeaderRecord Kind) {
        return PreambleStore::record(*P, Kind);
      };
      Loaded.StoreRecord = [P = UsedPreamble](HeaderRecord Kind,
                                              const std::string &Record) {
        PreambleStore::storeRecord(*P, Kind, Record);
      };
    } else if (llvm::sys::path::filename(UsedPch).starts_with("prefix-")) {
      Loaded.OwnHeaders = true;
      Loaded.PrefixScope = Store->scope(UsedPch);
      Loaded.Directives = Store->directives(UsedPch);
      Loaded.LoadRecord = [Store = Store, Pch = UsedPch](HeaderRecord Kind) {
        return Store->record(Pch, Kind);
      };
      Loaded.StoreRecord = [Store = Store, Pch = UsedPch](
                               HeaderRecord Kind, const std::string &Record) {
        Store->storeRecord(Pch, Kind, Record);
      };
    }
    return Create(std::move(Loaded));
  }
  bool runInvocation(std::shared_ptr<clang::CompilerInvocation> Invocation,
                     clang::FileManager *Files,
                     std::shared_ptr<clang::PCHContainerOperations> Ops,
                     clang::DiagnosticConsumer *Diags) override {
    makeReadOnly(*Invocation);
    if (Preambles) {
      llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS =
          Files->getVirtualFileSystemPtr();
      UsedPreamble = Preambles->use(*Invocation, FS, Unsaved);
      if (UsedPreamble) {
        // The preamble lives in memory, in a file system of its own over the
        // parse's.
        auto WithPreamble = llvm::makeIntrusiveRefCnt<clang::FileManager>(
            Files->getFileSystemOpts(), FS);
        return FrontendActionFactory::runInvocation(
            std::move(Invocation), WithPreamble.get(), std::move(Ops), Diags);
      }
    }
    if (Store)
      UsedPch = Store->use(*Invocation, SharedIncludes);
    return FrontendActionFactory::runInvocation(std::move(Invocation), Files,
                                                std::move(Ops), Diags);
  }
  /// Whether a failed parse is to be run again without what it loaded. Always
  /// for the precompiled runtime headers (one of the system headers behind them
  /// may have changed). A preamble was checked against its files before the
  /// parse and built without an error: errors in the file itself are the file's
  /// (the editor's buffer while it is being typed, most often), and only the
  /// others make the parse run again.
  ///
  /// The precompiled runtime headers are at fault only when an error is in a
  /// runtime header or has no place (a header changed since they were built is
  /// a fatal error without one): errors in the unit's own code are the unit's,
  /// a missing #include of its own too, and a second parse would only repeat
  /// them.
  bool retryWithout(const std::vector<Diagnostic> &Errors,
                    const std::string &MainFile,
                    const ParseEnvironment &Env) const {
    if (!UsedPch.empty()) {
      for (const Diagnostic &D : Errors) {
        llvm::StringRef File = D.Loc.File;
        if (File.empty() ||
            (!Env.Toolkit.Path.empty() && File.starts_with(Env.Toolkit.Path)) ||
            (!Env.ClangResourceDir.empty() &&
             File.starts_with(Env.ClangResourceDir)) ||
            llvm::StringRef(D.Message).contains("precompiled"))
          return true;
      }
      return false;
    }
    if (!UsedPreamble)
      return false;
    const llvm::StringRef Name = llvm::sys::path::filename(MainFile);
    for (const Diagnostic &D : Errors)
      if (!D.Loc.File.empty() && llvm::sys::path::filename(D.Loc.File) == Name)
        return false;
    return true;
  }
  /// Whether Clang rejected the precompiled header the parse loaded (out of
  /// date, damaged).
  bool rejected(const std::vector<Diagnostic> &Errors) const {
    return !UsedPch.empty() &&
           std::any_of(Errors.begin(), Errors.end(), [](const Diagnostic &D) {
             return llvm::StringRef(D.Message).contains("precompiled");
           });
  }
  /// Whether the parse loaded a precompiled header or a preamble.
  bool loadedAnything() const {
    return !UsedPch.empty() || UsedPreamble != nullptr;
  }
  /// Forgets what the parse loaded: a parse without it did better.
  void discard() {
    if (!UsedPch.empty())
      Store->discard(UsedPch);
    if (UsedPreamble)
      Preambles->discard(UsedPreamble);
  }
  /// Adds what the parse loaded, and the files behind it, to \p Inputs.
  void addInputs(std::vector<std::string> &Inputs) const {
    if (!UsedPch.empty()) {
      Inputs.push_back(UsedPch);
      const std::vector<std::string> More = Store->inputs(UsedPch);
      Inputs.insert(Inputs.end(), More.begin(), More.end());
      std::sort(Inputs.begin(), Inputs.end());
      Inputs.erase(std::unique(Inputs.begin(), Inputs.end()), Inputs.end());
    }
    if (UsedPreamble) {
      const std::vector<std::string> &More =
          PreambleStore::inputs(*UsedPreamble);
      Inputs.insert(Inputs.end(), More.begin(), More.end());
      std::sort(Inputs.begin(), Inputs.end());
      Inputs.erase(std::unique(Inputs.begin(), Inputs.end()), Inputs.end());
    }
  }

private:
  std::function<std::unique_ptr<clang::FrontendAction>(LoadedHeaders)> Create;
  HeaderPchStore *Store;
  PreambleStore *Preambles;
  const std::map<std::string, std::string> &Unsaved;
  std::string
      UsedPch; ///< The precompiled header the parse loaded ("" if none).
  std::shared_ptr<const Preamble>
      UsedPreamble; ///< The preamble it loaded (null if none).
  std::vector<std::string> SharedIncludes; ///< UnitJob::SharedIncludes.
  std::function<void()> FastPathStarts; ///< ParseEnvironment's.
};

} // namespace frontend
} // namespace tilefit

#endif
