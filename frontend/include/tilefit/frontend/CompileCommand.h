//===- CompileCommand.h -----------------------------------------*- C++ -*-===//
// Compile commands and compilation databases.
#ifndef TILEFIT_FRONTEND_COMPILECOMMAND_H
#define TILEFIT_FRONTEND_COMPILECOMMAND_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <string>
#include <vector>

namespace tilefit {
namespace frontend {

/// One compile command as a build ran it. Nothing in it is ever executed:
/// tilefit reads the flags and parses the source itself.
struct CompileCommand {
  std::string Directory; ///< Absolute working directory of the command.
  std::string File;      ///< Absolute path of the source file.
  std::vector<std::string> Arguments; ///< argv; Arguments[0] is the compiler.
  std::string Origin; ///< For messages: `build/compile_commands.json, entry 3`.
};

/// Reads a JSON compilation database: \p Path is the file or the folder holding
/// compile_commands.json. Entries may use "command" or "arguments"; relative
/// "directory" values are taken from the database's folder, relative files from
/// "directory". A malformed file is an error naming the file and the problem; a
/// malformed entry is skipped with a message in \p Warnings.
llvm::Expected<std::vector<CompileCommand>>
loadCompilationDatabase(llvm::StringRef Path,
                        std::vector<std::string> &Warnings);

/// Splits a "command" string into arguments by the POSIX shell rules the JSON
/// compilation database format uses (quotes and backslashes).
std::vector<std::string> splitCommandLine(llvm::StringRef Command);

/// The inverse of splitCommandLine: \p Arguments as one line that a POSIX
/// shell, and splitCommandLine but for empty arguments (which it drops), read
/// back into the same arguments. An argument made only of characters no
/// shell treats specially is written as it is; any other is
/// double-quoted, with a backslash before each backslash, `"`, `$` and `` ` ``.
std::string joinCommandLine(llvm::ArrayRef<std::string> Arguments);

/// Expands response files in \p Cmd's arguments, relative to its directory:
/// `@file` (clang, nvcc) and nvcc's `--options-file F` / `-optf F` (F may be a
/// comma-separated list). Nested response files are expanded too, to a fixed
/// depth. Unreadable files are an error naming them; so is a file \p MayRead
/// (when given) refuses, which is then not read.
llvm::Error
expandResponseFiles(CompileCommand &Cmd,
                    const std::function<bool(llvm::StringRef)> &MayRead = {});

/// The compilation database for sources in \p Dir, by the one rule the command
/// line and the language server share (clangd's): the first of
/// DIR/compile_commands.json and DIR/build/compile_commands.json going up from
/// \p Dir. Empty if none.
std::string findCompilationDatabaseAbove(llvm::StringRef Dir);

/// The first regular file named one of \p Names (tried in order) in \p Dir or
/// the nearest folder above it, absolute; "" if none.
std::string findFileAbove(llvm::StringRef Dir,
                          llvm::ArrayRef<llvm::StringRef> Names);

} // namespace frontend
} // namespace tilefit

#endif
