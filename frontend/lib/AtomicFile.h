//===- AtomicFile.h ---------------------------------------------*- C++ -*-===//
// Write a file so that readers see all or nothing.
#ifndef TILEFIT_FRONTEND_ATOMICFILE_H
#define TILEFIT_FRONTEND_ATOMICFILE_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace tilefit {
namespace frontend {

/// Writes \p Bytes to \p Path through a temporary file beside it and a rename:
/// a concurrent reader (another tilefit process sharing the cache folder) sees
/// the old file or the new one, never a part. False, and nothing left behind,
/// on failure.
bool writeFileAtomically(const std::string &Path, llvm::StringRef Bytes);

} // namespace frontend
} // namespace tilefit

#endif
