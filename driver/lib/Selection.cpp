//===- Selection.cpp - Which compile commands a run analyses --------------===//
#include "Stages.h"

#include "tilefit/frontend/CommandTranslation.h"
#include "tilefit/model/Checks.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <set>

using namespace llvm;

namespace tilefit {
namespace driver {
namespace {

/// Whether the database file \p Entry matches the source \p Source named on the
/// command line: the same absolute path, or \p Source a path suffix of it (as
/// clang-tidy accepts).
bool sourceMatches(const std::string &Entry, const std::string &Source) {
  if (Entry == absolutePath(Source))
    return true;
  StringRef E = Entry, S = Source;
  return E.ends_with(S) &&
         (E.size() == S.size() || E[E.size() - S.size() - 1] == '/');
}

/// The command of the source \p Src named with the arguments after `--`
/// (\p Args, maybe none): a command as the build would run it, pasted with
/// its compiler (`nvcc -arch=sm_80 -c k.cu`), or the flags alone, read as
/// nvcc's when they are spelled so.
frontend::CompileCommand adhocCommand(const std::string &Src,
                                      const std::vector<std::string> &Args) {
  frontend::CompileCommand C;
  C.Directory = currentDir();
  C.File = absolutePath(Src);
  const bool WithCompiler =
      !Args.empty() && frontend::isCompilerName(Args.front());
  if (!WithCompiler)
    C.Arguments.push_back(frontend::argumentsLookLikeNvcc(Args) ? "nvcc"
                                                                : "clang++");
  C.Arguments.insert(C.Arguments.end(), Args.begin(), Args.end());
  if (std::none_of(Args.begin(), Args.end(), [&](const std::string &A) {
        return absolutePath(A) == C.File;
      }))
    C.Arguments.push_back(C.File);
  C.Origin = "command line";
  return C;
}

/// \p C's arguments without its output file (`-o FILE`), which does not
/// matter here.
std::vector<std::string>
argumentsWithoutOutput(const frontend::CompileCommand &C) {
  std::vector<std::string> Key;
  for (size_t I = 0; I < C.Arguments.size(); ++I) {
    if (C.Arguments[I] == "-o") {
      ++I;
      continue;
    }
    Key.push_back(C.Arguments[I]);
  }
  return Key;
}

/// The commands chosen so far, each unit once, and the problems met on the
/// way (in \p R, setting \p Failed).
class ChosenCommands {
public:
  ChosenCommands(Report &R, bool &Failed) : R(R), Failed(Failed) {}

  /// A problem with the input \p File: an error of the run.
  void fail(const std::string &File, const std::string &Msg) {
    R.ToolMessages.push_back(inputProblem(File, Msg));
    Failed = true;
  }

  /// Takes \p C, its response files expanded. Several entries for one file
  /// with the same flags (one per build configuration that did not change
  /// them) are one unit.
  void take(frontend::CompileCommand C) {
    if (Error E = frontend::expandResponseFiles(C)) {
      fail(C.File, toString(std::move(E)));
      return;
    }
    if (Seen.insert({C.File, argumentsWithoutOutput(C)}).second)
      Out.push_back(std::move(C));
  }

  std::vector<frontend::CompileCommand> Out;

private:
  Report &R;
  bool &Failed;
  std::set<std::pair<std::string, std::vector<std::string>>> Seen;
};

/// The commands of the compilation database \p DbPath for \p Req's sources,
/// or its every CUDA entry when none is named.
void takeFromDatabase(const AnalyzeRequest &Req, const std::string &DbPath,
                      ChosenCommands &Chosen) {
  // An entry tilefit cannot read is an input it was asked to analyse and could
  // not: an error of the run (exit status 2) that stops none of the other
  // entries.
  std::vector<std::string> BadEntries;
  auto Db = frontend::loadCompilationDatabase(DbPath, BadEntries);
  for (const std::string &W : BadEntries)
    Chosen.fail(DbPath, W);
  if (!Db) {
    Chosen.fail(DbPath, toString(Db.takeError()));
    return;
  }
  if (Req.Sources.empty()) {
    // Every CUDA entry of the database; others (host C++) quietly skipped.
    for (frontend::CompileCommand C : *Db) {
      if (Error E = frontend::expandResponseFiles(C)) {
        Chosen.fail(C.File, toString(std::move(E)));
        continue;
      }
      if (frontend::translateCommand(C).IsCuda)
        Chosen.take(C);
    }
    return;
  }
  for (const std::string &S : Req.Sources) {
    bool Found = false;
    for (const frontend::CompileCommand &C : *Db)
      if (sourceMatches(C.File, S)) {
        Chosen.take(C);
        Found = true;
      }
    if (!Found) {
      if (!Req.BuildPath.empty())
        Chosen.fail(absolutePath(S),
                    "no compile command for '" + S + "' in " + DbPath);
      else
        Chosen.take(adhocCommand(S, {}));
    }
  }
}

} // namespace

std::string currentDir() {
  SmallString<256> Cwd;
  sys::fs::current_path(Cwd);
  return std::string(Cwd);
}

std::string absolutePath(StringRef P) {
  SmallString<256> Out(P);
  sys::fs::make_absolute(Out);
  sys::path::remove_dots(Out, true);
  return std::string(Out);
}

Diagnostic inputProblem(const std::string &File, const std::string &Msg) {
  Diagnostic D;
  D.Level = Severity::Error;
  D.Check = std::string(checkInfo(CheckId::Input).Name);
  D.Message = Msg;
  D.Loc.File = File;
  return D;
}

/// Chooses the compile commands to analyse; reports sources it cannot place.
std::vector<frontend::CompileCommand> selectCommands(const AnalyzeRequest &Req,
                                                     Report &R, bool &Failed) {
  ChosenCommands Chosen(R, Failed);
  if (!Req.Commands.empty()) {
    for (const frontend::CompileCommand &C : Req.Commands)
      Chosen.take(C);
    return std::move(Chosen.Out);
  }
  if (Req.HaveDashDash) {
    for (const std::string &S : Req.Sources)
      Chosen.take(adhocCommand(S, Req.Extra));
    return std::move(Chosen.Out);
  }

  std::string DbPath = Req.BuildPath;
  if (DbPath.empty() && !Req.Sources.empty())
    DbPath = frontend::findCompilationDatabaseAbove(
        sys::path::parent_path(absolutePath(Req.Sources.front())));
  if (DbPath.empty()) {
    for (const std::string &S : Req.Sources)
      Chosen.take(adhocCommand(S, {}));
    return std::move(Chosen.Out);
  }
  takeFromDatabase(Req, DbPath, Chosen);
  return std::move(Chosen.Out);
}

void keepShard(const AnalyzeRequest &Req,
               std::vector<frontend::CompileCommand> &Commands) {
  if (!Req.Shard)
    return;
  std::stable_sort(
      Commands.begin(), Commands.end(),
      [](const frontend::CompileCommand &A, const frontend::CompileCommand &B) {
        return A.File < B.File;
      });
  std::vector<frontend::CompileCommand> Mine;
  for (size_t I = 0; I < Commands.size(); ++I)
    if (I % Req.Shard->second == Req.Shard->first - 1)
      Mine.push_back(std::move(Commands[I]));
  Commands = std::move(Mine);
}

} // namespace driver
} // namespace tilefit
