//===- FactsMemo.h - Facts kept for edits that change no code ---*- C++ -*-===//
//
// The language server analyses a file again after each edit. An edit that
// changes no line of code (a comment written, changed or removed, blank lines
// added or taken out) leaves every fact as it was but the line numbers of what
// follows it: the memo keeps the last facts of each parse command with the
// lines of code they were read from, and answers such an edit with them, each
// position in the file moved to its line's new number. The report is then made
// again from them, over the new text (NOLINT comments are read there).
//
// A line of code holds a token that is not a comment (a preprocessor
// directive's too, in a skipped block as well), found by Clang's raw lexer. A
// comment that speaks to tilefit (`tilefit-dynamic-smem:`) or to a linter
// (NOLINT) counts as code. A line is compared up to the end of its last token
// of code: a comment after it, or spaces, may change (they move no column),
// and a backslash that ends it is kept. Every other file the parse read must be as it was:
// an editor buffer by its content, a file on disk by its size and time.
//
// A name Clang makes of a place in the file (`(lambda at /src/main.cu:12:5)`,
// `(unnamed union at ...)`) is moved as the positions are. Facts are not kept
// where a line number may be part of them otherwise: a `__LINE__` of the file
// that goes anywhere but to a C library function that only prints it
// (fprintf's arguments, assert's line; ParseActions.cpp), `#line`,
// `__builtin_LINE`, std::source_location, or a place that names the file by a
// path the parse did not read it by.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_FRONTEND_FACTSMEMO_H
#define TILEFIT_FRONTEND_FACTSMEMO_H

#include "tilefit/model/Facts.h"

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tilefit {
namespace frontend {

/// The 1-based numbers of the lines of \p Text that hold code, ascending.
std::vector<unsigned> codeLines(const std::string &Text);

class FactsMemo {
public:
  /// Keeps at most \p Capacity commands' facts (the least recently used go).
  explicit FactsMemo(size_t Capacity = 64) : Capacity(Capacity) {}

  /// The facts kept for \p Key (the parse's command lines and settings) when
  /// \p Text, \p File's content now, holds the same lines of code in the same
  /// order as the text they were read from and every other file they were read
  /// from is unchanged (\p Unsaved: editor buffers by path); positions in \p
  /// File moved to the new lines. None otherwise.
  std::optional<TranslationUnitFacts>
  lookup(const std::string &Key, const std::string &File,
         const std::string &Text,
         const std::map<std::string, std::string> &Unsaved);

  /// Keeps \p Facts (complete: not failed) of \p Key, read from \p Text and
  /// \p Inputs (absolute paths, \p File among them or not).
  void store(const std::string &Key, const std::string &File,
             const std::string &Text, const TranslationUnitFacts &Facts,
             const std::vector<std::string> &Inputs,
             const std::map<std::string, std::string> &Unsaved);

  unsigned hits() const { return Hits; }

private:
  /// A file as it was read: an editor buffer's content hash, or a file's
  /// size and time on disk.
  struct Stamp {
    std::string Path;
    bool Buffer = false;
    uint64_t Size = 0;
    int64_t Time = 0;
    uint64_t Hash = 0;
    bool operator==(const Stamp &O) const {
      return Path == O.Path && Buffer == O.Buffer && Size == O.Size &&
             Time == O.Time && Hash == O.Hash;
    }
  };
  static std::optional<Stamp>
  stampOf(const std::string &Path,
          const std::map<std::string, std::string> &Unsaved);

  struct Entry {
    std::vector<std::string> Code;  ///< The lines of code, in order, as
                                    ///< compared (FactsMemo.cpp's codeOf).
    std::vector<unsigned> CodeAt;   ///< Their numbers.
    std::string Facts;              ///< factsToJson's.
    std::vector<std::string> Inputs;
    std::set<std::string> File;     ///< Its spellings among Inputs.
    std::vector<Stamp> Stamps;      ///< Of Inputs, but the file itself.
    uint64_t Used = 0;
  };

  const size_t Capacity;
  std::mutex Lock;
  std::map<std::string, Entry> Entries;
  uint64_t Clock = 0;
  unsigned Hits = 0;
};

} // namespace frontend
} // namespace tilefit

#endif
