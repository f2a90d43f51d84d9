//===- Protocol.h - URIs, positions and documents of the LSP ----*- C++ -*-===//
#ifndef TILEFIT_LSP_PROTOCOL_H
#define TILEFIT_LSP_PROTOCOL_H

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace tilefit {
namespace lsp {

/// JSON-RPC and LSP error codes.
enum ErrorCode : int {
  ParseError = -32700,
  InvalidRequest = -32600,
  MethodNotFound = -32601,
  InvalidParams = -32602,
  InternalError = -32603,
  ServerNotInitialized = -32002,
  RequestCancelled = -32800,
};

/// How `character` in a Position counts: UTF-16 code units unless the client
/// and the server agreed on another (LSP 3.17 `positionEncoding`).
enum class PositionEncoding { Utf8, Utf16, Utf32 };

const char *encodingName(PositionEncoding E);

/// The absolute path of a `file:` URI (percent-decoded), or nothing for another
/// scheme.
std::optional<std::string> uriToPath(const std::string &Uri);
/// The `file:` URI of an absolute path.
std::string pathToUri(const std::string &Path);

/// An LSP position: 0-based line and character.
struct Position {
  unsigned Line = 0;
  unsigned Character = 0;
};

/// A text document an editor has open: the text and its line starts.
class Document {
public:
  Document() = default;
  explicit Document(std::string Text) { setText(std::move(Text)); }

  const std::string &text() const { return Text; }
  void setText(std::string NewText);
  unsigned lineCount() const {
    return static_cast<unsigned>(LineStarts.size());
  }
  /// Line \p Line (0-based) without its end of line; empty past the end.
  std::string line(unsigned Line) const;

  /// The byte offset of \p P, clamped to the text (a character past the end of
  /// its line is the end of the line, as the protocol asks).
  size_t offsetOf(Position P, PositionEncoding E) const;
  /// The position of 1-based line \p Line and 1-based byte column \p Column
  /// (Clang's).
  Position positionOf(unsigned Line, unsigned Column, PositionEncoding E) const;

  /// Applies one `contentChanges` item: with a range, an incremental edit;
  /// without, the whole text. False (and no change) when the item is malformed.
  bool applyChange(const nlohmann::json &Change, PositionEncoding E);

private:
  std::string Text;
  std::vector<size_t> LineStarts{0};
};

/// Converts a byte column (0-based) within \p Line to a character count in
/// encoding \p E.
unsigned charactersOf(const std::string &Line, size_t Bytes,
                      PositionEncoding E);
/// The byte column of character \p Character of \p Line in encoding \p E
/// (clamped).
size_t bytesOf(const std::string &Line, unsigned Character, PositionEncoding E);

/// Reads a Position from JSON; nothing if malformed.
std::optional<Position> readPosition(const nlohmann::json &J);
nlohmann::json toJson(Position P);
nlohmann::json rangeJson(Position Start, Position End);

} // namespace lsp
} // namespace tilefit

#endif
