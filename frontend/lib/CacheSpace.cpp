//===- CacheSpace.cpp - The space a cache folder holds, counted -----------===//
#include "CacheSpace.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <unistd.h>
#include <vector>

namespace tilefit {
namespace frontend {
namespace cachespace {

using namespace llvm;

namespace {

struct Counter {
  uint64_t Bytes = 0;
  uint64_t Files = 0;
};

std::string counterPath(const std::string &Folder) {
  SmallString<256> P(Folder);
  sys::path::append(P, CounterName);
  return std::string(P);
}

bool isTemporary(StringRef Name) { return Name.ends_with(".tmp"); }

/// Records written beside a precompiled header, removed with it.
bool isPchRecord(StringRef Name) {
  return Name.ends_with(".pch.inputs") || Name.ends_with(".pch.scope") ||
         Name.ends_with(".pch.refused") || Name.ends_with(".pch.pp");
}

struct File {
  std::string Path;
  uint64_t Size;
  sys::TimePoint<> Used;
};

/// The files of \p Folder the counter counts (not the counter, not a
/// temporary file); temporary files an hour old are removed on the way when
/// \p RemoveStale.
std::vector<File> filesOf(const std::string &Folder, bool RemoveStale) {
  std::vector<File> Out;
  std::error_code EC;
  for (sys::fs::directory_iterator It(Folder, EC), End; It != End && !EC;
       It.increment(EC)) {
    sys::fs::file_status S;
    if (sys::fs::status(It->path(), S) || !sys::fs::is_regular_file(S))
      continue;
    StringRef Name = sys::path::filename(It->path());
    if (Name == CounterName)
      continue;
    if (isTemporary(Name)) {
      if (RemoveStale && std::chrono::system_clock::now() -
                                 S.getLastModificationTime() >
                             std::chrono::hours(1))
        sys::fs::remove(It->path());
      continue;
    }
    Out.push_back({It->path(), S.getSize(), S.getLastModificationTime()});
  }
  return Out;
}

Counter counted(const std::string &Folder) {
  Counter C;
  for (const File &F : filesOf(Folder, /*RemoveStale=*/false)) {
    C.Bytes += F.Size;
    ++C.Files;
  }
  return C;
}

bool parse(StringRef Text, Counter &C) {
  StringRef Bytes, Files;
  std::tie(Bytes, Files) = Text.trim().split(' ');
  return !Bytes.getAsInteger(10, C.Bytes) && !Files.getAsInteger(10, C.Files);
}

/// Runs \p Update on \p Folder's counter under an exclusive lock of its file
/// and writes back what it leaves. \p Update's flag says the counter had no
/// value (a new file, or a damaged one): the folder was counted instead.
void update(const std::string &Folder,
            const std::function<void(Counter &, bool Fresh)> &Update) {
  if (sys::fs::create_directories(Folder))
    return;
  int FD;
  if (sys::fs::openFileForReadWrite(counterPath(Folder), FD,
                                    sys::fs::CD_OpenAlways, sys::fs::OF_None))
    return;
  if (sys::fs::lockFile(FD)) {
    sys::fs::closeFile(FD);
    return;
  }
  char Buf[64];
  ssize_t N = ::pread(FD, Buf, sizeof(Buf) - 1, 0);
  Counter C;
  bool Fresh = N <= 0 || !parse(StringRef(Buf, N), C);
  if (Fresh)
    C = counted(Folder);
  Update(C, Fresh);
  char Out[64];
  int Len = std::snprintf(Out, sizeof(Out), "%llu %llu\n",
                          static_cast<unsigned long long>(C.Bytes),
                          static_cast<unsigned long long>(C.Files));
  if (::pwrite(FD, Out, Len, 0) == Len)
    (void)::ftruncate(FD, Len);
  sys::fs::unlockFile(FD);
  sys::fs::closeFile(FD);
}

/// \p Folder's counter, counting the folder once where it has none.
Counter read(const std::string &Folder) {
  Counter C;
  int FD;
  if (!sys::fs::openFileForRead(counterPath(Folder), FD)) {
    char Buf[64];
    ssize_t N = ::pread(FD, Buf, sizeof(Buf) - 1, 0);
    sys::fs::closeFile(FD);
    if (N > 0 && parse(StringRef(Buf, N), C))
      return C;
  }
  update(Folder, [&](Counter &Now, bool) { C = Now; });
  return C;
}

struct Folder {
  std::string Path;
  Counter C;
};

std::vector<Folder> foldersOf(const std::string &Root) {
  std::vector<Folder> Out;
  std::error_code EC;
  for (sys::fs::directory_iterator It(Root, EC), End; It != End && !EC;
       It.increment(EC))
    if (It->type() == sys::fs::file_type::directory_file)
      Out.push_back({It->path(), read(It->path())});
  return Out;
}

} // namespace

uint64_t sizeOf(const std::string &Path) {
  uint64_t Size = 0;
  if (sys::fs::file_size(Path, Size))
    return 0;
  return Size;
}

void account(const std::string &Folder, int64_t Bytes, int64_t Files) {
  update(Folder, [&](Counter &C, bool Fresh) {
    if (Fresh)
      return; // Counted with the change already on disk.
    auto Add = [](uint64_t &V, int64_t D) {
      V = D < 0 && static_cast<uint64_t>(-D) > V ? 0 : V + D;
    };
    Add(C.Bytes, Bytes);
    Add(C.Files, Files);
  });
}

void recount(const std::string &Folder) {
  update(Folder, [&](Counter &C, bool) { C = counted(Folder); });
}

uint64_t total(const std::string &Root) {
  uint64_t Sum = 0;
  for (const Folder &F : foldersOf(Root))
    Sum += F.C.Bytes;
  return Sum;
}

uint64_t cleanIfOver(const std::string &Root, uint64_t MaxBytes) {
  std::vector<Folder> Folders = foldersOf(Root);
  uint64_t Sum = 0;
  for (const Folder &F : Folders)
    Sum += F.C.Bytes;
  if (Sum <= MaxBytes)
    return 0;
  const uint64_t Target = MaxBytes / 10 * 9;
  const uint64_t Before = Sum;
  // The largest first; each gives at most half of what it holds while others
  // remain, so that the least recently used entries of every folder go before
  // any folder is emptied.
  std::sort(Folders.begin(), Folders.end(),
            [](const Folder &A, const Folder &B) {
              return A.C.Bytes > B.C.Bytes;
            });
  for (int Pass = 0; Pass < 8 && Sum > Target; ++Pass) {
    for (size_t I = 0; I < Folders.size() && Sum > Target; ++I) {
      Folder &F = Folders[I];
      std::vector<File> Files = filesOf(F.Path, /*RemoveStale=*/true);
      std::sort(Files.begin(), Files.end(),
                [](const File &A, const File &B) { return A.Used < B.Used; });
      const bool Last = I + 1 == Folders.size();
      uint64_t Removed = 0;
      const uint64_t Cap = Last ? UINT64_MAX : F.C.Bytes / 2;
      for (const File &E : Files) {
        if (Sum <= Target || Removed >= Cap)
          break;
        StringRef Name = sys::path::filename(E.Path);
        if (isPchRecord(Name) || Name.ends_with(".cu"))
          continue; // Goes with its header; a header's source is tiny.
        if (sys::fs::remove(E.Path))
          continue;
        uint64_t Gone = E.Size;
        if (Name.ends_with(".pch"))
          for (const char *Suffix : {".inputs", ".scope", ".refused", ".pp"}) {
            const std::string Record = E.Path + Suffix;
            const uint64_t Size = sizeOf(Record);
            if (!sys::fs::remove(Record))
              Gone += Size;
          }
        Removed += Gone;
        Sum -= std::min(Sum, Gone);
      }
      // What is left, counted: the counter is exact again, and the sum
      // follows it (others may have written meanwhile).
      Counter Now;
      update(F.Path, [&](Counter &C, bool) {
        Now = counted(F.Path);
        C = Now;
      });
      const int64_t Drift = static_cast<int64_t>(Now.Bytes) -
                            (static_cast<int64_t>(F.C.Bytes) -
                             static_cast<int64_t>(Removed));
      Sum = Drift < 0 && static_cast<uint64_t>(-Drift) > Sum ? 0 : Sum + Drift;
      F.C = Now;
    }
  }
  return Before > Sum ? Before - Sum : 0;
}

} // namespace cachespace
} // namespace frontend
} // namespace tilefit
