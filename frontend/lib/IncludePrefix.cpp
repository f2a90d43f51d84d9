//===- IncludePrefix.cpp - The #include lines units start with ------------===//
#include "tilefit/frontend/IncludePrefix.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <map>

namespace tilefit {
namespace frontend {

std::vector<std::string> leadingIncludes(llvm::StringRef Text) {
  std::vector<std::string> Out;
  bool InComment = false;
  while (!Text.empty()) {
    llvm::StringRef Line;
    std::tie(Line, Text) = Text.split('\n');
    Line = Line.rtrim("\r");
    if (Line.ends_with("\\"))
      break;
    // Comments, whole lines of them or after a directive.
    std::string Code;
    for (size_t I = 0; I < Line.size(); ++I) {
      if (InComment) {
        if (Line.substr(I).starts_with("*/")) {
          InComment = false;
          ++I;
        }
        continue;
      }
      if (Line.substr(I).starts_with("//"))
        break;
      if (Line.substr(I).starts_with("/*")) {
        InComment = true;
        ++I;
        continue;
      }
      Code += Line[I];
    }
    llvm::StringRef C = llvm::StringRef(Code).trim();
    if (C.empty())
      continue;
    if (!C.consume_front("#"))
      break;
    C = C.ltrim();
    if (C.starts_with("pragma")) {
      if (C.drop_front(6).trim() == "once")
        continue;
      break;
    }
    if (!C.consume_front("include"))
      break;
    C = C.ltrim();
    if (C.size() < 3)
      break;
    const char Close = C.front() == '"' ? '"' : C.front() == '<' ? '>' : 0;
    const size_t End = Close ? C.find(Close, 1) : llvm::StringRef::npos;
    if (End == llvm::StringRef::npos || !C.drop_front(End + 1).trim().empty())
      break;
    Out.push_back("#include " + C.take_front(End + 1).str());
  }
  return Out;
}

std::vector<std::string> resolvedIncludes(const std::vector<std::string> &Lines,
                                          llvm::StringRef Dir) {
  std::vector<std::string> Out;
  for (const std::string &Line : Lines) {
    llvm::StringRef Name = llvm::StringRef(Line).drop_front(9); // `#include `
    if (Name.starts_with("\"") && Name.size() > 2) {
      Name = Name.drop_front().drop_back();
      if (!llvm::sys::path::is_absolute(Name)) {
        // Clang names a file found beside its includer "<dir>/<name>".
        std::string Beside = (Dir + "/" + Name).str();
        if (llvm::sys::fs::exists(Beside)) {
          Out.push_back("#include \"" + Beside + "\"");
          continue;
        }
      }
    }
    Out.push_back(Line);
  }
  return Out;
}

size_t namedIncludePrefix(const std::vector<std::string> &Lines,
                          const std::vector<std::string> &Globs) {
  std::vector<llvm::GlobPattern> Patterns;
  for (const std::string &G : Globs)
    if (auto P = llvm::GlobPattern::create(G))
      Patterns.push_back(std::move(*P));
    else
      llvm::consumeError(P.takeError());
  size_t N = 0;
  for (size_t I = 0; I < Lines.size(); ++I) {
    // `#include "name"` or `#include <name>`, as leadingIncludes writes them.
    llvm::StringRef Name =
        llvm::StringRef(Lines[I]).drop_front(9).drop_front().drop_back();
    if (llvm::any_of(Patterns,
                     [&](const llvm::GlobPattern &P) { return P.match(Name); }))
      N = I + 1;
  }
  return N;
}

std::vector<std::vector<std::string>>
sharedIncludePrefixes(const std::vector<std::vector<std::string>> &Includes,
                      const std::vector<std::string> &Keys, bool EvenAlone,
                      const std::vector<size_t> &Named) {
  std::vector<std::vector<std::string>> Out(Includes.size());
  std::map<std::string, std::vector<size_t>> ByKey;
  for (size_t I = 0; I < Includes.size() && I < Keys.size(); ++I)
    ByKey[Keys[I]].push_back(I);
  for (const auto &[Key, Units] : ByKey)
    for (size_t A : Units) {
      size_t Best = 0;
      for (size_t B : Units) {
        if (A == B)
          continue;
        const auto &X = Includes[A], &Y = Includes[B];
        const size_t N =
            std::mismatch(X.begin(), X.end(), Y.begin(), Y.end()).first -
            X.begin();
        Best = std::max(Best, N);
      }
      if (EvenAlone && Units.size() == 1)
        Best = Includes[A].size();
      if (A < Named.size())
        Best = std::max(Best, std::min(Named[A], Includes[A].size()));
      Out[A].assign(Includes[A].begin(), Includes[A].begin() + Best);
    }
  return Out;
}

} // namespace frontend
} // namespace tilefit
