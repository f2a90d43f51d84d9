//===- Policy.cpp - The policy pass, the last to touch the report ---------===//
#include "Stages.h"

#include "tilefit/model/GlobList.h"
#include "tilefit/model/Suppressions.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>

using namespace llvm;

namespace tilefit {
namespace driver {

/// The one policy pass, after the checks and before anything reads the report;
/// nothing changes the report after it. In order: the project's folder
/// (R.SourceRoot); which findings in headers are shown (the header filter of
/// each unit's configuration, else the project's own headers); NOLINT comments;
/// --warnings-as-errors; each kernel's worst finding.
void applyPolicy(const AnalyzeRequest &Req, const Session &Ses,
                 const std::map<std::string, const Settings *> &UnitSettings,
                 const std::vector<frontend::UnitJob> &UnitJobs,
                 const frontend::ParseEnvironment &Env, Report &R) {
  // Findings in headers follow the header filter of their unit's configuration;
  // without one, those in the project's own headers (under its source folder,
  // not in a folder its command includes with -isystem) are shown and count, as
  // the unit's own do (finalizeReport has made a header's finding one,
  // whichever units include it).
  const std::string Root =
      Req.SourceRoot.empty() ? projectRoot(Req.BuildPath, R) : Req.SourceRoot;
  R.SourceRoot = Root;
  std::map<std::string, std::vector<std::string>> SystemDirs; // by unit file
  for (const frontend::UnitJob &J : UnitJobs) {
    const std::vector<std::string> &A = J.Flags.ClangArgs;
    for (size_t I = 0; I + 1 < A.size(); ++I)
      if (A[I] == "-isystem") {
        SmallString<256> Dir(A[I + 1]);
        sys::fs::make_absolute(J.Command.Directory, Dir);
        sys::path::remove_dots(Dir, /*remove_dot_dot=*/true);
        SystemDirs[J.Command.File].push_back(std::string(Dir));
      }
  }
  auto Under = [](StringRef File, StringRef Dir) {
    return !Dir.empty() && File.starts_with(Dir) &&
           (Dir.ends_with("/") || File.substr(Dir.size()).starts_with("/"));
  };
  size_t Hidden = filterHeaderFindings(R, [&](const Diagnostic &D) {
    auto It = UnitSettings.find(D.TranslationUnit);
    if (It != UnitSettings.end() && It->second->HeaderFilter)
      return It->second->HeaderFilter->match(D.Loc.File);
    // A root of "/" (units with nothing in common) is no project: headers stay
    // hidden.
    if (Root == "/" || !Under(D.Loc.File, Root))
      return false;
    auto Dirs = SystemDirs.find(D.TranslationUnit);
    return Dirs == SystemDirs.end() ||
           std::none_of(
               Dirs->second.begin(), Dirs->second.end(),
               [&](const std::string &Dir) { return Under(D.Loc.File, Dir); });
  });
  if (Hidden && !Ses.options().Quiet)
    Ses.message("note", std::to_string(Hidden) +
                            " finding(s) in headers outside the " +
                            "project (" + Root +
                            ") not shown (use --header-filter=<regex> to " +
                            "show them)");

  // NOLINT comments.
  applySuppressions(R, [&](const std::string &File) {
    return frontend::readSource(Env, File);
  });

  // --warnings-as-errors, per unit.
  for (Diagnostic &D : R.Diagnostics) {
    auto It = UnitSettings.find(D.TranslationUnit);
    if (It == UnitSettings.end() || It->second->WarningsAsErrors.empty())
      continue;
    if (D.Level == Severity::Warning &&
        GlobList(It->second->WarningsAsErrors).contains(D.Check)) {
      D.Level = Severity::Error;
      D.PromotedToError = true;
    }
  }
  // The table's marks follow what is left: a NOLINT'd or hidden finding marks
  // nothing.
  markWorstFindings(R);
}

std::string projectRoot(const std::string &BuildPath, const Report &R) {
  if (!BuildPath.empty()) {
    SmallString<256> Cache(BuildPath);
    if (!sys::fs::is_directory(Cache))
      Cache.truncate(sys::path::parent_path(Cache).size()); // Not from itself.
    sys::path::append(Cache, "CMakeCache.txt");
    if (auto Buf = MemoryBuffer::getFile(Cache)) {
      StringRef Text = (*Buf)->getBuffer();
      for (StringRef Key :
           {"CMAKE_HOME_DIRECTORY:INTERNAL=", "CMAKE_HOME_DIRECTORY:STATIC="}) {
        size_t P = Text.find(Key);
        if (P != StringRef::npos)
          return Text.substr(P + Key.size()).split('\n').first.rtrim().str();
      }
    }
  }
  // The deepest folder holding every unit's file.
  std::string Common;
  bool First = true;
  for (const UnitReport &U : R.Units) {
    std::string Dir = sys::path::parent_path(U.File).str();
    if (First) {
      Common = Dir;
      First = false;
      continue;
    }
    while (!Common.empty() &&
           !(Dir == Common || StringRef(Dir).starts_with(Common + "/")))
      Common = sys::path::parent_path(Common).str();
  }
  if (!Common.empty())
    return Common;
  SmallString<256> Cwd;
  sys::fs::current_path(Cwd);
  return std::string(Cwd);
}

} // namespace driver
} // namespace tilefit
