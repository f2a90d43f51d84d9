//===- CompileCommand.cpp -------------------------------------------------===//
#include "tilefit/frontend/CompileCommand.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/StringSaver.h"

#include <nlohmann/json.hpp>

namespace tilefit {
namespace frontend {

std::vector<std::string> splitCommandLine(llvm::StringRef Command) {
  llvm::BumpPtrAllocator Alloc;
  llvm::StringSaver Saver(Alloc);
  llvm::SmallVector<const char *, 64> Argv;
  llvm::cl::TokenizeGNUCommandLine(Command, Saver, Argv, /*MarkEOLs=*/false);
  std::vector<std::string> Out;
  for (const char *A : Argv)
    if (A)
      Out.emplace_back(A);
  return Out;
}

std::string joinCommandLine(llvm::ArrayRef<std::string> Arguments) {
  auto Plain = [](char C) {
    return llvm::isAlnum(C) || llvm::StringRef("_-+=/.,:@%^").contains(C);
  };
  std::string Out;
  for (const std::string &A : Arguments) {
    if (!Out.empty())
      Out += ' ';
    if (!A.empty() && llvm::all_of(A, Plain)) {
      Out += A;
      continue;
    }
    // Double quotes, in which a shell and splitCommandLine both read a
    // backslash before these four as the character itself.
    Out += '"';
    for (char C : A) {
      if (llvm::StringRef("\\\"$`").contains(C))
        Out += '\\';
      Out += C;
    }
    Out += '"';
  }
  return Out;
}

namespace {

std::string absolute(llvm::StringRef Base, llvm::StringRef P) {
  llvm::SmallString<256> Out(P);
  if (!llvm::sys::path::is_absolute(Out)) {
    Out = Base;
    llvm::sys::path::append(Out, P);
  }
  llvm::sys::path::remove_dots(Out, /*remove_dot_dot=*/true);
  return std::string(Out);
}

} // namespace

llvm::Expected<std::vector<CompileCommand>>
loadCompilationDatabase(llvm::StringRef Path,
                        std::vector<std::string> &Warnings) {
  llvm::SmallString<256> File(Path);
  if (llvm::sys::fs::is_directory(File))
    llvm::sys::path::append(File, "compile_commands.json");
  llvm::sys::fs::make_absolute(File);
  llvm::sys::path::remove_dots(File, true);
  auto Buf = llvm::MemoryBuffer::getFile(File, /*IsText=*/true);
  if (!Buf)
    return llvm::createStringError(
        Buf.getError(), "%s: cannot read the compilation database: %s",
        File.c_str(), Buf.getError().message().c_str());
  llvm::StringRef Text = (*Buf)->getBuffer();
  nlohmann::json J;
  try {
    J = nlohmann::json::parse(Text.begin(), Text.end());
  } catch (const nlohmann::json::parse_error &E) {
    size_t Offset = std::min<size_t>(E.byte ? E.byte - 1 : 0, Text.size());
    llvm::StringRef Before = Text.take_front(Offset);
    unsigned Line = 1 + Before.count('\n');
    unsigned Col =
        Offset -
        (Before.rfind('\n') == llvm::StringRef::npos ? -1 : Before.rfind('\n'));
    return llvm::createStringError(
        std::errc::invalid_argument,
        "%s:%u:%u: the compilation database is not valid JSON", File.c_str(),
        Line, Col);
  } catch (const nlohmann::json::exception &E) {
    // A number too large for a double (out_of_range.406) is not a parse_error.
    return llvm::createStringError(
        std::errc::invalid_argument,
        "%s: the compilation database is not valid JSON: %s", File.c_str(),
        E.what());
  }
  if (!J.is_array())
    return llvm::createStringError(
        std::errc::invalid_argument,
        "%s: the compilation database must be a JSON array of entries",
        File.c_str());

  const std::string DbDir = std::string(llvm::sys::path::parent_path(File));
  std::vector<CompileCommand> Out;
  for (size_t I = 0; I < J.size(); ++I) {
    const nlohmann::json &E = J[I];
    std::string Origin = std::string(File) + ", entry " + std::to_string(I + 1);
    auto Skip = [&](const std::string &Why) {
      Warnings.push_back(Origin + ": " + Why + "; skipped");
    };
    if (!E.is_object()) {
      Skip("not an object");
      continue;
    }
    auto Str = [&](const char *Key) -> const nlohmann::json * {
      auto It = E.find(Key);
      return It != E.end() && It->is_string() ? &*It : nullptr;
    };
    const nlohmann::json *Dir = Str("directory"), *Src = Str("file"),
                         *Cmd = Str("command");
    if (!Dir) {
      Skip("no \"directory\" string");
      continue;
    }
    if (!Src) {
      Skip("no \"file\" string");
      continue;
    }
    CompileCommand C;
    C.Origin = Origin;
    C.Directory = absolute(DbDir, Dir->get<std::string>());
    C.File = absolute(C.Directory, Src->get<std::string>());
    if (auto It = E.find("arguments"); It != E.end()) {
      if (!It->is_array()) {
        Skip("\"arguments\" is not an array");
        continue;
      }
      bool Ok = true;
      for (const auto &A : *It) {
        if (!A.is_string()) {
          Ok = false;
          break;
        }
        C.Arguments.push_back(A.get<std::string>());
      }
      if (!Ok) {
        Skip("\"arguments\" holds something other than strings");
        continue;
      }
    } else if (Cmd) {
      C.Arguments = splitCommandLine(Cmd->get<std::string>());
    } else {
      Skip("neither \"arguments\" nor \"command\"");
      continue;
    }
    if (C.Arguments.empty()) {
      Skip("empty command");
      continue;
    }
    Out.push_back(std::move(C));
  }
  return Out;
}

llvm::Error
expandResponseFiles(CompileCommand &Cmd,
                    const std::function<bool(llvm::StringRef)> &MayRead) {
  constexpr int MaxDepth = 16;
  // Files that name each other more than once grow exponentially with the depth
  // (a file naming itself twice is read 2^16 times): the reads of one command
  // are bounded too.
  constexpr int MaxFiles = 1000;
  int Files = 0;
  auto Read = [&](llvm::StringRef Name,
                  std::vector<std::string> &Out) -> llvm::Error {
    if (++Files > MaxFiles)
      return llvm::createStringError(
          std::errc::invalid_argument,
          "%s: more than %d response files to read; do they name "
          "each other?",
          Cmd.Origin.c_str(), MaxFiles);
    llvm::SmallString<256> P(Name);
    if (!llvm::sys::path::is_absolute(P)) {
      P = Cmd.Directory;
      llvm::sys::path::append(P, Name);
    }
    llvm::sys::path::remove_dots(P, /*remove_dot_dot=*/true);
    if (MayRead && !MayRead(P))
      return llvm::createStringError(
          std::errc::permission_denied,
          "%s: response file '%s' is outside the workspace; not read",
          Cmd.Origin.c_str(), P.c_str());
    // Only a regular file: a FIFO or a device (@/dev/zero) would block or never
    // end.
    if (llvm::sys::fs::exists(P) && !llvm::sys::fs::is_regular_file(P))
      return llvm::createStringError(
          std::errc::invalid_argument,
          "%s: response file '%s' is not a regular file", Cmd.Origin.c_str(),
          P.c_str());
    auto Buf = llvm::MemoryBuffer::getFile(P, /*IsText=*/true);
    if (!Buf)
      return llvm::createStringError(
          Buf.getError(), "%s: cannot read response file '%s': %s",
          Cmd.Origin.c_str(), P.c_str(), Buf.getError().message().c_str());
    for (std::string &A : splitCommandLine((*Buf)->getBuffer()))
      Out.push_back(std::move(A));
    return llvm::Error::success();
  };
  for (int Depth = 0; Depth < MaxDepth; ++Depth) {
    bool Changed = false;
    std::vector<std::string> Out;
    for (size_t I = 0; I < Cmd.Arguments.size(); ++I) {
      llvm::StringRef A = Cmd.Arguments[I];
      if (I > 0 && A.size() > 1 && A.starts_with("@")) {
        if (auto E = Read(A.drop_front(), Out))
          return E;
        Changed = true;
        continue;
      }
      llvm::StringRef Files;
      if ((A == "--options-file" || A == "-optf") &&
          I + 1 < Cmd.Arguments.size())
        Files = Cmd.Arguments[++I];
      else if (A.consume_front("--options-file=") || A.consume_front("-optf="))
        Files = A;
      else {
        Out.push_back(A.str());
        continue;
      }
      llvm::SmallVector<llvm::StringRef, 2> Parts;
      Files.split(Parts, ',', -1, false);
      for (llvm::StringRef F : Parts)
        if (auto E = Read(F, Out))
          return E;
      Changed = true;
    }
    Cmd.Arguments = std::move(Out);
    if (!Changed)
      return llvm::Error::success();
  }
  return llvm::createStringError(std::errc::invalid_argument,
                                 "%s: response files nested more than %d deep",
                                 Cmd.Origin.c_str(), MaxDepth);
}

std::string findFileAbove(llvm::StringRef Dir,
                          llvm::ArrayRef<llvm::StringRef> Names) {
  llvm::SmallString<256> Cur(Dir);
  llvm::sys::fs::make_absolute(Cur);
  while (!Cur.empty()) {
    for (llvm::StringRef Name : Names) {
      llvm::SmallString<256> Candidate(Cur);
      llvm::sys::path::append(Candidate, Name);
      if (llvm::sys::fs::is_regular_file(Candidate))
        return std::string(Candidate);
    }
    llvm::StringRef Parent = llvm::sys::path::parent_path(Cur);
    if (Parent == Cur)
      break;
    Cur.truncate(Parent.size()); // Parent points into Cur: no self-assignment.
  }
  return "";
}

std::string findCompilationDatabaseAbove(llvm::StringRef Dir) {
  return findFileAbove(
      Dir, {"compile_commands.json", "build/compile_commands.json"});
}

} // namespace frontend
} // namespace tilefit
