//===- CacheSpace.h - The space a cache folder holds, counted ---*- C++ -*-===//
//
// How much a cache folder holds is kept the way ccache keeps it: a counter per
// first-level subfolder (`<subfolder>/stats`: bytes and files), updated under a
// file lock as entries are written and removed. No run lists the folder to
// learn its size, so a run that only reads the cache touches the entries it
// reads and nothing else, whatever the folder holds. When a run that wrote
// something finds the total past the bound, it cleans subfolders one at a
// time, the largest first, removing their least recently used files; the
// counter of a cleaned subfolder is then recounted from what is left.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_FRONTEND_CACHESPACE_H
#define TILEFIT_FRONTEND_CACHESPACE_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace tilefit {
namespace frontend {
namespace cachespace {

/// The name of a subfolder's counter file.
constexpr const char *CounterName = "stats";

/// The size of the file at \p Path, 0 when there is none.
uint64_t sizeOf(const std::string &Path);

/// Adds \p Bytes and \p Files (either may be negative) to the counter of the
/// subfolder \p Folder. A folder without a counter (left by an older tilefit)
/// is counted once first.
void account(const std::string &Folder, int64_t Bytes, int64_t Files);

/// Counts \p Folder again from what it holds: for a folder whose files are
/// few and written by Clang itself (the precompiled headers).
void recount(const std::string &Folder);

/// The bytes the subfolders of \p Root hold, as their counters say.
uint64_t total(const std::string &Root);

/// When the subfolders of \p Root hold more than \p MaxBytes, removes their
/// least recently used entries until they hold at most nine tenths of it, one
/// subfolder at a time, the largest first. A precompiled header (`.pch`) goes
/// with the records written beside it. Temporary files (`.tmp`) an hour old,
/// left by a run that died, go as a subfolder is cleaned. Returns the bytes
/// removed.
uint64_t cleanIfOver(const std::string &Root, uint64_t MaxBytes);

} // namespace cachespace
} // namespace frontend
} // namespace tilefit

#endif
