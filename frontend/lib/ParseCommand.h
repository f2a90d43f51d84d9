//===- ParseCommand.h - The command line and files of a parse ----*- C++ -*-===//
//
// What a parse of one unit runs on: Clang's command line for one side and
// architecture (Parse.h's parseCommandLine, planJobs), the file system it
// reads (the disk's regular files under the unsaved buffers), and the errors
// about the input itself.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_FRONTEND_PARSECOMMAND_H
#define TILEFIT_FRONTEND_PARSECOMMAND_H

#include "tilefit/frontend/Parse.h"
#include "tilefit/model/Facts.h"

#include "llvm/Support/VirtualFileSystem.h"

#include <string>

namespace tilefit {
namespace frontend {

/// A tilefit-input error about \p File.
Diagnostic inputError(const std::string &File, std::string Message);

/// The files a parse sees: the disk, under the unsaved buffers. One per parse:
/// the working folder is per parse.
llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem>
fileSystemFor(const ParseEnvironment &Env, const std::string &Directory);

/// The facts of a unit Clang crashed on: none, and the error that says so.
TranslationUnitFacts crashedFacts(const UnitJob &Job);

} // namespace frontend
} // namespace tilefit

#endif
