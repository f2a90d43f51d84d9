//===- FilesRead.cpp ------------------------------------------------------===//
#include "FilesRead.h"

#include "clang/Basic/FileManager.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>

namespace tilefit {
namespace frontend {

std::vector<std::string> filesRead(const clang::SourceManager &SM) {
  std::vector<std::string> Out;
  for (auto It = SM.fileinfo_begin(); It != SM.fileinfo_end(); ++It) {
    if (!It->second->getBufferIfLoaded())
      continue;
    // The path on disk, resolved physically: '..' may cross a symbolic link (a
    // precompiled header names the C++ headers
    // '/../lib/gcc/.../../../../include/...', which only the file system
    // resolves, /lib being a link), so names are not simplified by hand, and
    // Clang's own real path (simplified lexically) is only the fallback, as for
    // unsaved buffers, which exist in no folder.
    llvm::SmallString<256> Name(It->first.getName());
    if (llvm::sys::path::is_relative(Name)) {
      llvm::SmallString<256> Abs(
          SM.getFileManager().getFileSystemOpts().WorkingDir);
      llvm::sys::path::append(Abs, Name);
      Name = Abs;
    }
    llvm::SmallString<256> P;
    if (llvm::sys::fs::real_path(Name, P)) {
      llvm::StringRef Real = It->first.getFileEntry().tryGetRealPathName();
      P = Real.empty() ? It->first.getName() : Real;
      llvm::sys::fs::make_absolute(P);
    }
    Out.push_back(std::string(P));
  }
  std::sort(Out.begin(), Out.end());
  Out.erase(std::unique(Out.begin(), Out.end()), Out.end());
  return Out;
}

} // namespace frontend
} // namespace tilefit
