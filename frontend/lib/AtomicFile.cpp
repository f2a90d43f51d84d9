//===- AtomicFile.cpp -----------------------------------------------------===//
#include "AtomicFile.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

namespace tilefit {
namespace frontend {

bool writeFileAtomically(const std::string &Path, llvm::StringRef Bytes) {
  llvm::SmallString<256> Temp;
  int FD;
  if (llvm::sys::fs::createUniqueFile(Path + ".%%%%%%%%.tmp", FD, Temp))
    return false;
  {
    llvm::raw_fd_ostream Out(FD, /*shouldClose=*/true);
    Out << Bytes;
    Out.close();
    if (Out.has_error()) {
      Out.clear_error();
      llvm::sys::fs::remove(Temp);
      return false;
    }
  }
  if (llvm::sys::fs::rename(Temp, Path)) {
    llvm::sys::fs::remove(Temp);
    return false;
  }
  return true;
}

} // namespace frontend
} // namespace tilefit
