//===- CommandLookup.cpp - Flags for a file an editor has open ------------===//
#include "tilefit/driver/CommandLookup.h"

#include "tilefit/frontend/CommandTranslation.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Chrono.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <optional>

using namespace llvm;

namespace tilefit {
namespace driver {
namespace {

std::string databaseIn(StringRef Dir) {
  SmallString<256> P(Dir);
  sys::path::append(P, "compile_commands.json");
  return sys::fs::is_regular_file(P) ? std::string(P) : "";
}

bool isSourceExtension(StringRef Path) {
  StringRef Ext = sys::path::extension(Path);
  return Ext == ".cu";
}

/// The index of the argument naming \p Cmd's source file, or -1.
int sourceArgument(const frontend::CompileCommand &Cmd) {
  for (size_t I = Cmd.Arguments.size(); I-- > 1;) {
    SmallString<256> Abs(Cmd.Arguments[I]);
    if (sys::path::is_relative(Abs))
      sys::fs::make_absolute(Cmd.Directory, Abs);
    sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
    if (Abs == Cmd.File)
      return static_cast<int>(I);
  }
  return -1;
}

size_t commonFolderLength(StringRef A, StringRef B) {
  size_t N = 0, LastSlash = 0;
  while (N < A.size() && N < B.size() && A[N] == B[N]) {
    if (A[N] == '/')
      LastSlash = N;
    ++N;
  }
  return LastSlash;
}

} // namespace

std::string findDatabaseFor(const std::string &File,
                            const std::string &FixedDir) {
  if (!FixedDir.empty())
    return databaseIn(FixedDir);
  return frontend::findCompilationDatabaseAbove(sys::path::parent_path(File));
}

frontend::CompileCommand
borrowCommand(const frontend::CompileCommand &Neighbour,
              const std::string &File) {
  frontend::CompileCommand C = Neighbour;
  C.File = File;
  C.Origin = Neighbour.Origin + " (borrowed from " + Neighbour.File + ")";
  int Src = sourceArgument(Neighbour);
  std::vector<std::string> Replacement;
  if (!isSourceExtension(File)) {
    // A header or a file of another extension: compile it as CUDA, as its
    // neighbour is.
    Replacement = {"-x",
                   frontend::isNvcc(C.Arguments.empty() ? "" : C.Arguments[0])
                       ? "cu"
                       : "cuda"};
  }
  Replacement.push_back(File);
  if (Src < 0) {
    C.Arguments.insert(C.Arguments.end(), Replacement.begin(),
                       Replacement.end());
  } else {
    C.Arguments.erase(C.Arguments.begin() + Src);
    C.Arguments.insert(C.Arguments.begin() + Src, Replacement.begin(),
                       Replacement.end());
  }
  return C;
}

const frontend::CompileCommand *
closestNeighbour(const std::vector<frontend::CompileCommand> &Entries,
                 const std::string &File) {
  const frontend::CompileCommand *Best = nullptr;
  std::tuple<bool, size_t> BestScore{false, 0};
  StringRef Stem = sys::path::stem(File);
  for (const frontend::CompileCommand &E : Entries) {
    std::tuple<bool, size_t> Score{sys::path::stem(E.File) == Stem,
                                   commonFolderLength(E.File, File)};
    if (!Best || Score > BestScore) {
      Best = &E;
      BestScore = Score;
    }
  }
  return Best;
}

const CommandLookup::Loaded &CommandLookup::load(const std::string &Path) {
  sys::fs::file_status Status;
  long long Stamp = 0;
  if (!sys::fs::status(Path, Status))
    Stamp = sys::toTimeT(Status.getLastModificationTime()) * 1000003LL +
            static_cast<long long>(Status.getSize());
  auto It = Databases.find(Path);
  if (It != Databases.end() && It->second.Stamp == Stamp)
    return It->second;
  Loaded L;
  L.Stamp = Stamp;
  auto Db = frontend::loadCompilationDatabase(Path, L.Warnings);
  if (!Db) {
    L.Warnings.push_back(toString(Db.takeError()));
  } else {
    for (frontend::CompileCommand &C : *Db) {
      if (Error E = frontend::expandResponseFiles(C, [&](StringRef P) {
            return !FixedDir.empty() || inRoots(P);
          })) {
        L.Warnings.push_back(toString(std::move(E)));
        continue;
      }
      if (frontend::translateCommand(C).IsCuda)
        L.Cuda.push_back(std::move(C));
    }
  }
  return Databases[Path] = std::move(L);
}

void CommandLookup::setRoots(std::vector<std::string> R) {
  Roots.clear();
  for (const std::string &Root : R) {
    SmallString<256> P;
    if (sys::fs::real_path(Root, P))
      P = Root;
    sys::path::remove_dots(P, /*remove_dot_dot=*/true);
    Roots.push_back(std::string(P));
  }
}

bool CommandLookup::inRoots(StringRef Path) const {
  if (Roots.empty())
    return true;
  // The path as it is, and with its links resolved (a link inside the workspace
  // may point out).
  SmallString<256> Plain(Path), Real;
  sys::path::remove_dots(Plain, /*remove_dot_dot=*/true);
  bool HaveReal = !sys::fs::real_path(Path, Real);
  auto Under = [](StringRef P, StringRef Root) {
    return P == Root ||
           (P.starts_with(Root) && sys::path::is_separator(P[Root.size()])) ||
           Root == "/";
  };
  for (const std::string &Root : Roots)
    if (Under(Plain, Root) && (!HaveReal || Under(Real, Root)))
      return true;
  return false;
}

void CommandLookup::dropForcedIncludesOutside(FoundCommand &Found) const {
  if (Roots.empty())
    return;
  // Longest first: -include-pch is not -include with "-pch".
  static const char *const Flags[] = {"--pre-include", "-include-pch",
                                      "-include", "-imacros"};
  std::vector<std::string> &Args = Found.Command.Arguments;
  std::vector<std::string> Kept;
  for (size_t I = 0; I < Args.size(); ++I) {
    StringRef A = Args[I];
    std::optional<std::string> Named; // the file the flag includes
    size_t Span = 1;
    for (StringRef Flag : Flags) {
      if (A == Flag && I + 1 < Args.size()) {
        Named = Args[I + 1];
        Span = 2;
      } else if (A.starts_with(Flag) && A.size() > Flag.size()) {
        // --pre-include=F, -include=F (nvcc); -includeF, -imacrosF (clang).
        StringRef Rest = A.drop_front(Flag.size());
        if (Rest.consume_front("="))
          Named = Rest.str();
        else if ((Flag == "-include" || Flag == "-imacros") &&
                 !A.starts_with("-include-pch"))
          Named = Rest.str();
      }
      if (Named)
        break;
    }
    if (Named) {
      SmallString<256> P(*Named);
      if (!sys::path::is_absolute(P)) {
        P = Found.Command.Directory;
        sys::path::append(P, *Named);
      }
      sys::path::remove_dots(P, /*remove_dot_dot=*/true);
      if (!inRoots(P)) {
        Found.Warnings.push_back(std::string(A) +
                                 (Span == 2 ? " " + *Named : "") + " in " +
                                 Found.Command.Origin + ": '" + std::string(P) +
                                 "' is outside the workspace; not read");
        I += Span - 1;
        continue;
      }
    }
    Kept.push_back(Args[I]);
  }
  Args = std::move(Kept);
}

FoundCommand CommandLookup::lookup(const std::string &File) {
  FoundCommand Found;
  Found.Database = findDatabaseFor(File, FixedDir);
  if (!Found.Database.empty() && FixedDir.empty() && !inRoots(Found.Database)) {
    Found.Warnings.push_back("ignored " + Found.Database +
                             ": outside the workspace (" + join(Roots, ", ") +
                             "); default flags are used");
    Found.Database.clear();
  }
  if (!Found.Database.empty()) {
    std::lock_guard<std::mutex> Guard(Lock);
    const Loaded &L = load(Found.Database);
    Found.Warnings = L.Warnings;
    for (const frontend::CompileCommand &C : L.Cuda)
      if (C.File == File) {
        Found.Command = C;
        Found.Source = CommandSource::Entry;
        dropForcedIncludesOutside(Found);
        return Found;
      }
    if (const frontend::CompileCommand *N = closestNeighbour(L.Cuda, File)) {
      Found.Command = borrowCommand(*N, File);
      Found.Source = CommandSource::Neighbour;
      dropForcedIncludesOutside(Found);
      return Found;
    }
  }
  // No database, or none of its entries is CUDA: a plain CUDA command in the
  // file's folder.
  Found.Command.Directory = std::string(sys::path::parent_path(File));
  Found.Command.File = File;
  Found.Command.Arguments = {"clang++", "-x", "cuda", File};
  Found.Command.Origin = "default flags";
  Found.Source = CommandSource::Fallback;
  Found.Database.clear();
  return Found;
}

} // namespace driver
} // namespace tilefit
