//===- PreambleStore.h - Per-file precompiled preambles ---------*- C++ -*-===//
//
// The language server analyses the same file again at every edit. As clangd
// does, it keeps for each file (and each parse of it: architecture, device or
// host side, options) a clang::PrecompiledPreamble: the file's leading #include
// block, with the CUDA runtime headers Clang includes implicitly, parsed once
// and kept in memory. The next parse of the file reuses it while the block's
// text, the files it read and the options are unchanged, and parses only the
// rest of the file.
//
// A preamble is not reused when building it reported an error (the warm parse
// would not report it again). It is kept per parse options (Clang does not
// compare them), and it notes the text of the unsaved buffers among the files
// it read: Clang checks those files by size and time, which an unsaved buffer
// lacks. Other unsaved buffers (the other files open in the editor) do not
// matter to it.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_FRONTEND_PREAMBLESTORE_H
#define TILEFIT_FRONTEND_PREAMBLESTORE_H

#include "tilefit/frontend/HeaderRecord.h"

#include "llvm/ADT/IntrusiveRefCntPtr.h"

#include <atomic>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace clang {
class CompilerInvocation;
}
namespace llvm {
namespace vfs {
class FileSystem;
}
} // namespace llvm

namespace tilefit {
namespace frontend {

/// One built preamble (opaque outside the store).
class Preamble;

class PreambleStore {
public:
  /// Keeps at most \p Capacity preambles (each a few to tens of MB), the least
  /// recently used dropped first.
  explicit PreambleStore(size_t Capacity = 8);
  ~PreambleStore();

  /// Makes \p Invocation (and \p FS) load the preamble of the invocation's main
  /// file as \p FS shows it, building it first if there is none that can be
  /// reused. \p Unsaved are the editor's buffers \p FS shows (by absolute
  /// path). Returns the preamble, which must outlive the parse, or null (\p
  /// Invocation left as it was) when none can be used.
  std::shared_ptr<const Preamble>
  use(clang::CompilerInvocation &Invocation,
      llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> &FS,
      const std::map<std::string, std::string> &Unsaved);

  /// The files \p P read while it was built (absolute, sorted).
  static const std::vector<std::string> &inputs(const Preamble &P);

  /// What the first parse that loaded \p P recorded of its declarations
  /// (HeaderRecord.h), for the next ones; empty if none yet.
  static std::string record(const Preamble &P, HeaderRecord Kind);
  static void storeRecord(const Preamble &P, HeaderRecord Kind,
                          const std::string &Record);

  /// Drops \p P (a parse with it failed where one without it did not).
  void discard(const std::shared_ptr<const Preamble> &P);

  /// Preambles built; found reusable; loaded by a parse (built or reused, and
  /// usable).
  unsigned builds() const { return Builds; }
  unsigned reuses() const { return Reuses; }
  unsigned loads() const { return Loads; }

private:
  struct Slot;
  std::shared_ptr<Slot> slotFor(const std::string &Key);

  size_t Capacity;
  std::mutex Lock;
  std::list<std::shared_ptr<Slot>> Slots; ///< Most recently used first.
  std::atomic<unsigned> Builds{0}, Reuses{0}, Loads{0};
};

} // namespace frontend
} // namespace tilefit

#endif
