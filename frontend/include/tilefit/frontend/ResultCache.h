//===- ResultCache.h - Facts of earlier parses, reused ----------*- C++ -*-===//
//
// A parse's facts depend only on tilefit's version, the parse's command line
// (architecture, flags, toolkit, resource folders) and the content of every
// file it read. Entries are keyed by the first three and the main file's
// content, and name the list of the other files read with their content hashes
// (stored once, under its own hash, and shared by every unit that read the same
// files): an entry is used only if every one of them is unchanged, so an edit
// to a header invalidates exactly the units that read it.
//
// Entries are written atomically (a unique temporary file, then a rename), so
// concurrent runs never see half an entry; an unreadable or corrupted entry is
// a miss and is replaced. The folder is kept under a size bound by removing the
// least recently used entries; what it holds is counted per subfolder as
// entries are written (CacheSpace.h), so a run that only reads never lists it.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_FRONTEND_RESULTCACHE_H
#define TILEFIT_FRONTEND_RESULTCACHE_H

#include "tilefit/model/Facts.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tilefit {
namespace frontend {

class ResultCache {
public:
  /// A cache in \p Dir (created on first write) holding at most about \p
  /// MaxBytes.
  ResultCache(std::string Dir, uint64_t MaxBytes = 1ull << 30);

  /// The key of a parse: toolIdentity(), its command lines and the main file's
  /// content.
  static std::string
  key(const std::vector<std::vector<std::string>> &CommandLines,
      const std::string &MainFileContent);

  /// The facts stored under \p Key if every file they were read from is
  /// unchanged.
  std::optional<TranslationUnitFacts> lookup(const std::string &Key);

  /// Stores \p Facts under \p Key with the files they came from (absolute
  /// paths). Failures to write are ignored: the cache is an optimisation.
  void store(const std::string &Key, const TranslationUnitFacts &Facts,
             const std::vector<std::string> &Inputs);

  /// After a run that stored something: removes the least recently used
  /// entries while the folder holds more than the bound.
  void trim();

  const std::string &dir() const { return Dir; }
  uint64_t hits() const { return Hits; }
  uint64_t misses() const { return Misses; }

  /// The default folder: $XDG_CACHE_HOME/tilefit or ~/.cache/tilefit ("" if
  /// neither exists).
  static std::string defaultDir();

  /// What identifies the running tilefit in every key: its version, and the
  /// size and time of its executable, so that a rebuilt tilefit (whose matchers
  /// may have changed with the same version number) never reads what an earlier
  /// build stored.
  static const std::string &toolIdentity();

private:
  std::string entryPath(const std::string &Key) const;
  std::string inputsPath(const std::string &Id) const;
  /// Whether every file of the input list \p Id is as it was (checked once per
  /// run).
  bool inputsUnchanged(const std::string &Id);
  /// Writes \p Text packed, and counts it in its folder's counter.
  bool writeAtomically(const std::string &Path, const std::string &Text);

  std::string Dir;
  uint64_t MaxBytes;
  std::atomic<uint64_t> Hits{0}, Misses{0};
  std::atomic<bool> Stored{false}; ///< This run wrote an entry.
  std::mutex Lock;
  /// Content hashes of the files seen in this run, with the size and time they
  /// had.
  std::map<std::string, std::pair<std::pair<uint64_t, int64_t>, std::string>>
      Known;
  std::map<std::string, bool> Checked; ///< Input lists checked in this run.
  std::set<std::string> Written;       ///< Input lists written in this run.
};

} // namespace frontend
} // namespace tilefit

#endif
