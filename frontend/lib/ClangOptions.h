//===- ClangOptions.h -------------------------------------------*- C++ -*-===//
//
// Clang's driver options, from its own table.
//
// How many arguments after a Clang driver flag are its values, read from the
// option table Clang's driver is generated from (clang/Driver/Options.inc, as
// clangd's ArgStripper reads it): only the table's data is included, no Clang
// library is linked.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_FRONTEND_CLANGOPTIONS_H
#define TILEFIT_FRONTEND_CLANGOPTIONS_H

#include "llvm/ADT/StringRef.h"

namespace tilefit {
namespace frontend {

/// The number of arguments that follow \p Arg as its values in a Clang driver
/// command: 1 for `-I` (separate), `-isystem`, `-x`, `-Xclang`, `-Xarch_sm_80`
/// (joined and separate), N for an option of N values (`-sectalign`), 0 for a
/// flag, a joined value (`-Iinc`, `--target=x`) or an argument Clang does not
/// know.
unsigned clangValuesAfter(llvm::StringRef Arg);

} // namespace frontend
} // namespace tilefit

#endif
