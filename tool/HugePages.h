//===- HugePages.h - tilefit's heap on transparent huge pages ---*- C++ -*-===//
//
// A parse of CuTe or CUTLASS code fills hundreds of MB of Clang's AST and
// precompiled declarations: on 4 KiB pages a fifth of the run goes into page
// faults and TLB misses (bench/README.md, "Huge pages"). glibc's malloc backs
// its heap with transparent huge pages when GLIBC_TUNABLES says
// glibc.malloc.hugetlb=1, which it reads only as the process starts; where the
// system gives huge pages on request (the kernel's "madvise" mode, Debian's
// default), tilefit sets it and runs itself again, once, before anything else.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_TOOL_HUGEPAGES_H
#define TILEFIT_TOOL_HUGEPAGES_H

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace tilefit {
namespace tool {

/// The GLIBC_TUNABLES value to run with, given its value now (\p Current,
/// nullptr when unset) and the kernel's transparent huge page setting
/// (\p ThpEnabled, the text of /sys/kernel/mm/transparent_hugepage/enabled):
/// Current with glibc.malloc.hugetlb=1 added; nothing where the setting is not
/// "madvise" (the kernel gives huge pages without being asked, or never) or
/// Current names glibc.malloc.hugetlb already (=0 keeps 4 KiB pages).
std::optional<std::string> hugePageTunables(const char *Current,
                                            llvm::StringRef ThpEnabled);

/// Runs this program again (/proc/self/exe, the same arguments) with
/// hugePageTunables' setting, where it has one; returns only where it does
/// not, or where running again fails. It uses nothing that needs a static
/// initializer: tilefit calls it before them (main.cpp).
void runWithHugePages(char **Argv);

} // namespace tool
} // namespace tilefit

#endif
