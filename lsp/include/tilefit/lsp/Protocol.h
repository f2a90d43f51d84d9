//===- Protocol.h - URIs, positions and documents of the LSP ----*- C++ -*-===//
#ifndef TILEFIT_LSP_PROTOCOL_H
#define TILEFIT_LSP_PROTOCOL_H

#include "tilefit/frontend/Config.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <stdexcept>
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

/// `window/logMessage` types.
enum class MessageType : int { Error = 1, Warning = 2, Info = 3, Log = 4 };

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

//===--- The messages tilefit reads, typed
//---------------------------------===//
//
// Each read<...> takes a message's `params` and throws BadParams, naming the
// member at fault, when they do not read; the server answers InvalidParams
// with it (a request) or logs it (a notification). Members tilefit does not
// use are not read.

/// Parameters that do not read.
struct BadParams : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// `initialize`: what tilefit takes of the client's capabilities, its settings
/// and its workspace.
struct InitializeParams {
  /// The client offers `utf-8` among its `general.positionEncodings`.
  bool Utf8Positions = false;
  /// `textDocument.publishDiagnostics.relatedInformation`.
  bool RelatedInformation = false;
  /// `initializationOptions`, null when absent.
  nlohmann::json InitializationOptions;
  /// The workspace's folders as paths: `workspaceFolders`, else `rootUri`,
  /// else `rootPath`.
  std::vector<std::string> Roots;
};
InitializeParams readInitializeParams(const nlohmann::json &Params);

/// A document a message names (`textDocument`): its `file:` URI, the path it
/// names, and its version where the message gives one (null otherwise).
struct DocumentRef {
  std::string Uri;
  std::string Path;
  nlohmann::json Version;
};
/// `params.textDocument` of any document message.
DocumentRef readDocumentRef(const nlohmann::json &Params);

/// `textDocument/didOpen`.
struct DidOpenParams {
  DocumentRef Doc;
  std::string Text;
};
DidOpenParams readDidOpenParams(const nlohmann::json &Params);

/// `textDocument/didChange`: the changes, each applied by
/// Document::applyChange.
struct DidChangeParams {
  DocumentRef Doc;
  nlohmann::json Changes; ///< An array.
};
DidChangeParams readDidChangeParams(const nlohmann::json &Params);

/// `textDocument/hover`.
struct HoverParams {
  DocumentRef Doc;
  Position Pos;
};
HoverParams readHoverParams(const nlohmann::json &Params);

/// `textDocument/codeAction`: the diagnostics of its context, as this server
/// published them (the ones that are not objects are dropped).
struct CodeActionParams {
  DocumentRef Doc;
  std::vector<nlohmann::json> Diagnostics;
};
CodeActionParams readCodeActionParams(const nlohmann::json &Params);

/// `textDocument/inlayHint`: the lines asked about.
struct InlayHintParams {
  DocumentRef Doc;
  Position Start, End;
};
InlayHintParams readInlayHintParams(const nlohmann::json &Params);

/// `$/cancelRequest`: the id of the request to cancel.
nlohmann::json readCancelId(const nlohmann::json &Params);

/// The editor's settings (`initializationOptions`, the `settings` of
/// `workspace/didChangeConfiguration`): either {"tilefit": {...}} (VS Code's
/// section) or the section itself. Each setting is read by the configuration's
/// own reader, under the name a .tilefit.yaml gives it (JSON is YAML): the same
/// checks, the same messages. A setting that does not read is left out, and
/// the others apply.
struct EditorSettings {
  /// What the settings that read set.
  frontend::Config Config;
  /// The settings left out, in the order met, each with what to log.
  struct Problem {
    MessageType Type;
    std::string Message; ///< Without the `tilefit: ` prefix.
  };
  std::vector<Problem> Problems;
};
/// Nothing when the section is not an object: the settings stay as they were.
std::optional<EditorSettings> readEditorSettings(const nlohmann::json &Raw);

} // namespace lsp
} // namespace tilefit

#endif
