//===- FactsMemo.cpp - Facts kept for edits that change no code -----------===//
#include "tilefit/frontend/FactsMemo.h"

#include "tilefit/model/FactsJson.h"

#include "clang/Basic/LangOptions.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <utility>

namespace tilefit {
namespace frontend {
namespace {

/// The language the lines are lexed in: C++ with every later standard's
/// tokens (raw strings, digit separators) and CUDA's `<<<`.
clang::LangOptions lexingOptions() {
  clang::LangOptions LO;
  LO.CPlusPlus = LO.CPlusPlus11 = LO.CPlusPlus14 = LO.CPlusPlus17 =
      LO.CPlusPlus20 = 1;
  LO.LineComment = 1;
  LO.CUDA = 1;
  LO.Bool = 1;
  return LO;
}

/// Whether a comment says something to tilefit or to a linter: it is then
/// read as code.
bool speaksToTools(llvm::StringRef Comment) {
  return Comment.contains_insensitive("tilefit") ||
         Comment.contains("NOLINT");
}

/// Where each line of \p Text starts.
std::vector<size_t> lineStarts(const std::string &Text) {
  std::vector<size_t> Starts{0};
  for (size_t I = 0; I < Text.size(); ++I)
    if (Text[I] == '\n')
      Starts.push_back(I + 1);
  return Starts;
}

/// The 1-based line of \p Offset.
unsigned lineOf(const std::vector<size_t> &Starts, size_t Offset) {
  return static_cast<unsigned>(
      std::upper_bound(Starts.begin(), Starts.end(), Offset) - Starts.begin());
}

/// Moves every position in \p File (its spellings) of the facts' document \p J to its line's
/// new number (\p Moved); false when one is on a line that is not there, or in
/// a file the facts were not read from.
bool movePositions(nlohmann::json &J, const std::set<std::string> &File,
                   const std::map<unsigned, unsigned> &Moved,
                   const std::set<std::string> &Read) {
  if (J.is_array()) {
    for (nlohmann::json &E : J)
      if (!movePositions(E, File, Moved, Read))
        return false;
    return true;
  }
  if (!J.is_object())
    return true;
  if (J.size() == 3 && J.contains("File") && J.contains("Line") &&
      J.contains("Column") && J["File"].is_string() &&
      J["Line"].is_number_unsigned()) {
    const std::string Where = J["File"].get<std::string>();
    const unsigned Line = J["Line"].get<unsigned>();
    if (Line == 0)
      return true;
    if (!File.count(Where))
      return Read.count(Where) > 0;
    auto It = Moved.find(Line);
    if (It == Moved.end())
      return false;
    J["Line"] = It->second;
    return true;
  }
  for (auto &[Key, Value] : J.items())
    if (!movePositions(Value, File, Moved, Read))
      return false;
  return true;
}

/// Ends a line of code (codeOf) whose newline a backslash splices away.
constexpr llvm::StringLiteral SplicedMark = "\n\\";

/// Whether \p Line (codeOf's) is bound to the line after it: it ends with a backslash
/// (its newline is spliced away), or its comment speaks to a tool about the
/// next line (`tilefit-dynamic-smem:` alone on the line above a launch,
/// NOLINTNEXTLINE). A line put between them, or taken from between them,
/// changes what they say.
bool bindsNext(llvm::StringRef Line) {
  return Line.ends_with(SplicedMark) || speaksToTools(Line);
}

/// Whether the text may make a fact depend on where its lines are, beyond
/// the positions the memo moves: a `#line` directive or line marker (the
/// positions after it are its), `__builtin_LINE()` or std::source_location
/// (a value made of a line number).
bool numbersItsLines(const std::string &Text,
                     const std::vector<std::string> &Code) {
  if (Text.find("__builtin_LINE") != std::string::npos ||
      Text.find("source_location") != std::string::npos)
    return true;
  for (llvm::StringRef Line : Code) {
    Line = Line.ltrim();
    if (!Line.consume_front("#"))
      continue;
    Line = Line.ltrim();
    if (Line.starts_with("line") || (!Line.empty() && llvm::isDigit(Line[0])))
      return true;
  }
  return false;
}

/// Moves the line of each place in the file (\p File: its spellings) that a
/// string of the facts' document \p J names, as Clang names an unnamed
/// class's or a lambda's type (`(lambda at /src/main.cu:12:5)`), to its new
/// number (\p Moved; with none, only checks). False where such a place names
/// the file by another spelling (its name, \p Names, ends the text before
/// `:<line>`), or a line that is not there.
bool movePlaces(nlohmann::json &J, const std::set<std::string> &File,
                const std::set<std::string> &Names,
                const std::map<unsigned, unsigned> *Moved) {
  if (J.is_string()) {
    std::string S = J.get<std::string>();
    bool Changed = false;
    for (const std::string &Name : Names)
      for (size_t At = S.find(Name + ":"); At != std::string::npos;
           At = S.find(Name + ":", At + 1)) {
        const size_t Digits = At + Name.size() + 1;
        size_t End = Digits;
        while (End < S.size() && llvm::isDigit(S[End]))
          ++End;
        if (End == Digits)
          continue;
        const bool Known = llvm::any_of(File, [&](const std::string &Spelling) {
          const size_t Length = Spelling.size();
          return Digits - 1 >= Length &&
                 S.compare(Digits - 1 - Length, Length, Spelling) == 0;
        });
        unsigned Line = 0;
        if (!Known ||
            llvm::StringRef(S).substr(Digits, End - Digits).getAsInteger(10,
                                                                        Line))
          return false;
        if (!Moved)
          continue;
        auto It = Moved->find(Line);
        if (It == Moved->end())
          return false;
        S.replace(Digits, End - Digits, std::to_string(It->second));
        Changed = true;
      }
    if (Changed)
      J = S;
    return true;
  }
  if (J.is_array() || J.is_object())
    for (auto &Value : J)
      if (!movePlaces(Value, File, Names, Moved))
        return false;
  return true;
}

/// The names of the file's spellings.
std::set<std::string> namesOf(const std::set<std::string> &File) {
  std::set<std::string> Names;
  for (const std::string &Spelling : File)
    Names.insert(llvm::sys::path::filename(Spelling).str());
  return Names;
}

/// The lines of code of \p Text, each with its number and its text up to the
/// end of its last token of code (the comments and spaces after it are not
/// code: they move no column), SplicedMark added where a backslash ends it.
std::vector<std::pair<unsigned, std::string>> codeOf(const std::string &Text) {
  const clang::LangOptions LO = lexingOptions();
  const std::vector<size_t> Starts = lineStarts(Text);
  // Where each line's code ends, by line.
  std::map<unsigned, size_t> EndOf;
  const char *Begin = Text.c_str();
  clang::Lexer L(clang::SourceLocation(), LO, Begin, Begin,
                 Begin + Text.size());
  L.SetCommentRetentionState(true);
  clang::Token T;
  while (true) {
    L.LexFromRawLexer(T);
    if (T.is(clang::tok::eof))
      break;
    // Raw locations count from the buffer's start.
    const size_t Offset = T.getLocation().getRawEncoding();
    const size_t Length = T.getLength();
    if (Offset > Text.size())
      break;
    if (T.is(clang::tok::comment) &&
        !speaksToTools(llvm::StringRef(Text).substr(Offset, Length)))
      continue;
    const size_t End = std::min(Offset + Length, Text.size());
    const unsigned First = lineOf(Starts, Offset);
    const unsigned Last = lineOf(Starts, Length ? End - 1 : Offset);
    for (unsigned Line = First; Line <= Last; ++Line) {
      const size_t LineEnd = Line < Starts.size() ? Starts[Line] - 1 : Text.size();
      size_t &At = EndOf[Line];
      At = std::max(At, std::min(End, LineEnd));
    }
  }
  std::vector<std::pair<unsigned, std::string>> Lines;
  for (const auto &[Line, End] : EndOf) {
    const size_t Start = Starts[Line - 1];
    const size_t LineEnd = Line < Starts.size() ? Starts[Line] - 1 : Text.size();
    std::string Code = Text.substr(Start, End - Start);
    if (llvm::StringRef(Text)
            .substr(Start, LineEnd - Start)
            .rtrim(" \t\r\v\f")
            .ends_with("\\"))
      Code += SplicedMark;
    Lines.emplace_back(Line, std::move(Code));
  }
  return Lines;
}

} // namespace

std::vector<unsigned> codeLines(const std::string &Text) {
  std::vector<unsigned> Lines;
  for (const auto &Line : codeOf(Text))
    Lines.push_back(Line.first);
  return Lines;
}

std::optional<FactsMemo::Stamp>
FactsMemo::stampOf(const std::string &Path,
                   const std::map<std::string, std::string> &Unsaved) {
  Stamp S;
  S.Path = Path;
  if (auto It = Unsaved.find(Path); It != Unsaved.end()) {
    S.Buffer = true;
    S.Size = It->second.size();
    S.Hash = llvm::xxh3_64bits(It->second);
    return S;
  }
  llvm::sys::fs::file_status Status;
  if (llvm::sys::fs::status(Path, Status))
    return std::nullopt;
  S.Size = Status.getSize();
  S.Time = Status.getLastModificationTime().time_since_epoch().count();
  return S;
}

void FactsMemo::store(const std::string &Key, const std::string &File,
                      const std::string &Text,
                      const TranslationUnitFacts &Facts,
                      const std::vector<std::string> &Inputs,
                      const std::map<std::string, std::string> &Unsaved) {
  // Failed facts are not kept, nor where a line number may be in the code
  // itself (a `__LINE__`, here or in a macro, that is not only printed).
  if (Facts.Failed || Facts.LineDependent)
    return;
  Entry E;
  for (auto &[Line, Code] : codeOf(Text)) {
    E.CodeAt.push_back(Line);
    E.Code.push_back(std::move(Code));
  }
  E.File.insert(File);
  for (const std::string &In : Inputs) {
    if (In == File || llvm::sys::fs::equivalent(In, File)) {
      E.File.insert(In);
      continue;
    }
    std::optional<Stamp> S = stampOf(In, Unsaved);
    if (!S)
      return; // Gone already: nothing to vouch for.
    E.Stamps.push_back(std::move(*S));
  }
  if (numbersItsLines(Text, E.Code))
    return;
  E.Inputs = Inputs;
  E.Facts = factsToJson(Facts);
  nlohmann::json J = nlohmann::json::parse(E.Facts, nullptr, false);
  if (J.is_discarded() || !movePlaces(J, E.File, namesOf(E.File), nullptr))
    return;
  std::lock_guard<std::mutex> Guard(Lock);
  E.Used = ++Clock;
  Entries[Key] = std::move(E);
  while (Entries.size() > Capacity) {
    auto Oldest = std::min_element(
        Entries.begin(), Entries.end(),
        [](const auto &A, const auto &B) { return A.second.Used < B.second.Used; });
    Entries.erase(Oldest);
  }
}

std::optional<TranslationUnitFacts>
FactsMemo::lookup(const std::string &Key, const std::string &File,
                  const std::string &Text,
                  const std::map<std::string, std::string> &Unsaved) {
  Entry E;
  {
    std::lock_guard<std::mutex> Guard(Lock);
    auto It = Entries.find(Key);
    if (It == Entries.end())
      return std::nullopt;
    It->second.Used = ++Clock;
    E = It->second;
  }
  const std::vector<std::pair<unsigned, std::string>> Code = codeOf(Text);
  if (Code.size() != E.CodeAt.size())
    return std::nullopt;
  std::vector<unsigned> At;
  for (const auto &Line : Code)
    At.push_back(Line.first);
  std::map<unsigned, unsigned> Moved;
  for (size_t I = 0; I < At.size(); ++I) {
    if (Code[I].second != E.Code[I])
      return std::nullopt;
    // A line bound to the next (bindsNext) must stay next to it, or apart.
    if (bindsNext(E.Code[I])) {
      const bool Was = I + 1 < At.size() && E.CodeAt[I + 1] == E.CodeAt[I] + 1;
      const bool Is = I + 1 < At.size() && At[I + 1] == At[I] + 1;
      if (Was != Is)
        return std::nullopt;
    }
    Moved[E.CodeAt[I]] = At[I];
  }
  for (const Stamp &S : E.Stamps) {
    std::optional<Stamp> Now = stampOf(S.Path, Unsaved);
    if (!Now || !(*Now == S))
      return std::nullopt;
  }
  nlohmann::json J = nlohmann::json::parse(E.Facts, nullptr, false);
  if (J.is_discarded())
    return std::nullopt;
  const std::set<std::string> Read(E.Inputs.begin(), E.Inputs.end());
  if (!movePositions(J, E.File, Moved, Read) ||
      !movePlaces(J, E.File, namesOf(E.File), &Moved))
    return std::nullopt;
  std::optional<TranslationUnitFacts> Facts = factsFromJson(J.dump());
  if (!Facts)
    return std::nullopt;
  Facts->Inputs = E.Inputs;
  std::lock_guard<std::mutex> Guard(Lock);
  ++Hits;
  return Facts;
}

} // namespace frontend
} // namespace tilefit
