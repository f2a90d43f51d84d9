//===- CommandLookup.h - Flags for a file an editor has open ----*- C++ -*-===//
//
// The compile command of one file, found as clangd finds it: the nearest
// compile_commands.json (in the file's folder or above it, or in a build/
// folder beside one of them, or in a fixed folder), the file's own entry, else
// the entry of its closest neighbour with the file put in its place (headers
// and new files), else a plain CUDA command.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_DRIVER_COMMANDLOOKUP_H
#define TILEFIT_DRIVER_COMMANDLOOKUP_H

#include "tilefit/frontend/CompileCommand.h"

#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace tilefit {
namespace driver {

/// How a command was found, for the editor's log and tests.
enum class CommandSource { Entry, Neighbour, Fallback };

struct FoundCommand {
  frontend::CompileCommand Command;
  CommandSource Source = CommandSource::Fallback;
  std::string Database; ///< The compile_commands.json used ("" for Fallback).
  std::vector<std::string>
      Warnings; ///< Problems with the database (malformed entries).
};

/// The compilation database for \p File: the one in \p FixedDir when given,
/// else the one the command line would use
/// (frontend::findCompilationDatabaseAbove from the file's folder). Empty if
/// there is none.
std::string findDatabaseFor(const std::string &File,
                            const std::string &FixedDir);

/// \p Neighbour's command with \p File compiled instead (as CUDA when \p File
/// is a header).
frontend::CompileCommand
borrowCommand(const frontend::CompileCommand &Neighbour,
              const std::string &File);

/// The entry of \p Entries whose file is the closest to \p File: the same stem
/// (a header beside its source), then the longest common folder, then the first
/// in the database.
const frontend::CompileCommand *
closestNeighbour(const std::vector<frontend::CompileCommand> &Entries,
                 const std::string &File);

/// Finds commands, reading each database once (again when it changes on disk).
/// Thread-safe.
class CommandLookup {
public:
  explicit CommandLookup(std::string FixedDir = "")
      : FixedDir(std::move(FixedDir)) {}

  /// The command for \p File (absolute). Never fails: a missing or broken
  /// database gives the fallback, with the problem in Warnings.
  FoundCommand lookup(const std::string &File);

  /// The workspace's folders (absolute). When there are any, a
  /// compile_commands.json found outside them is not read (the fallback is
  /// used, with a warning), and neither is a response file a database names
  /// outside them (the entry is skipped) nor a file its command includes by
  /// force (-include, -imacros, --pre-include, -include-pch: dropped, with a
  /// warning): the editor chose the workspace, not what lies above it. Header
  /// search folders (-I, -isystem) stay: the toolkit's and the system's headers
  /// are outside every workspace, and a source names what it includes from
  /// them. The fixed folder is the user's choice and is read. Call before the
  /// first lookup.
  void setRoots(std::vector<std::string> Roots);
  /// Whether \p Path is in one of the roots (true when there are none).
  bool inRoots(llvm::StringRef Path) const;

private:
  struct Loaded {
    long long Stamp = 0;
    std::vector<frontend::CompileCommand>
        Cuda; ///< Its CUDA entries, response files expanded.
    std::vector<std::string> Warnings;
  };
  const Loaded &load(const std::string &Path);
  /// Drops from \p Found's command the files it includes by force outside the
  /// roots.
  void dropForcedIncludesOutside(FoundCommand &Found) const;

  std::string FixedDir;
  std::vector<std::string> Roots;
  std::mutex Lock;
  std::map<std::string, Loaded> Databases;
};

} // namespace driver
} // namespace tilefit

#endif
