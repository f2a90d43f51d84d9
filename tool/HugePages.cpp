//===- HugePages.cpp ------------------------------------------------------===//
#include "HugePages.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"

#include <cstdlib>
#include <fcntl.h>
#include <unistd.h>

namespace tilefit {
namespace tool {

namespace {
constexpr llvm::StringLiteral Tunable = "glibc.malloc.hugetlb";
/// GLIBC_TUNABLES as tilefit was given it, for the run again: "-" when unset,
/// "=" and its value otherwise.
constexpr const char *Before = "TILEFIT_GLIBC_TUNABLES_BEFORE";
} // namespace

std::optional<std::string> hugePageTunables(const char *Current,
                                            llvm::StringRef ThpEnabled) {
  if (!ThpEnabled.contains("[madvise]"))
    return std::nullopt;
  const llvm::StringRef Now = Current ? Current : "";
  // Tunables are name=value pairs separated by ':'.
  llvm::SmallVector<llvm::StringRef, 4> Pairs;
  Now.split(Pairs, ':', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef Pair : Pairs)
    if (Pair.split('=').first.trim() == Tunable)
      return std::nullopt;
  std::string Out = Now.str();
  if (!Out.empty())
    Out += ':';
  Out += (Tunable + "=1").str();
  return Out;
}

void runWithHugePages(char **Argv) {
#if defined(__linux__) && defined(__GLIBC__)
  if (const char *Was = std::getenv(Before)) {
    // Run again: glibc has read the setting; the processes tilefit starts (the
    // compiler, as a launcher) get the environment tilefit was given.
    if (Was[0] == '=')
      setenv("GLIBC_TUNABLES", Was + 1, 1);
    else
      unsetenv("GLIBC_TUNABLES");
    unsetenv(Before);
    return;
  }
  // Plain reads: this runs before the program's static initializers.
  char Mode[128];
  const int Fd =
      open("/sys/kernel/mm/transparent_hugepage/enabled", O_RDONLY | O_CLOEXEC);
  if (Fd < 0)
    return;
  const ssize_t Size = read(Fd, Mode, sizeof(Mode));
  close(Fd);
  if (Size <= 0)
    return;
  const char *Current = std::getenv("GLIBC_TUNABLES");
  std::optional<std::string> Tunables = hugePageTunables(
      Current, llvm::StringRef(Mode, static_cast<size_t>(Size)));
  if (!Tunables)
    return;
  const std::string Was = Current ? std::string("=") + Current : "-";
  if (setenv(Before, Was.c_str(), 1) != 0)
    return;
  if (setenv("GLIBC_TUNABLES", Tunables->c_str(), 1) != 0) {
    unsetenv(Before);
    return;
  }
  execv("/proc/self/exe", Argv);
  // Not run again: as it was.
  if (Current)
    setenv("GLIBC_TUNABLES", Was.c_str() + 1, 1);
  else
    unsetenv("GLIBC_TUNABLES");
  unsetenv(Before);
#else
  (void)Argv;
#endif
}

} // namespace tool
} // namespace tilefit
