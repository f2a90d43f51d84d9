//===- Features.h -----------------------------------------------*- C++ -*-===//
//
// Diagnostics, hover, inlay hints and code lenses.
//
// What the editor shows, computed from the model's report of one file and the
// text the editor has: no Clang here. Positions are converted with the
// document's own text, so the encoding agreed with the client is respected.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_LSP_FEATURES_H
#define TILEFIT_LSP_FEATURES_H

#include "tilefit/lsp/Protocol.h"
#include "tilefit/model/Report.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace tilefit {
namespace lsp {

struct FeatureOptions {
  PositionEncoding Encoding = PositionEncoding::Utf16;
  /// The checks' documentation; a check's page is DocsUri + "#" + its name.
  std::string DocsUri;
  /// The client shows `relatedInformation`; otherwise notes are appended to the
  /// message.
  bool RelatedInformation = true;
};

/// The LSP diagnostics of \p Path: tilefit's findings located in it, parse
/// errors, and findings of headers it includes (at the #include line).
nlohmann::json diagnosticsFor(const Report &R, const std::string &Path,
                              const Document &Doc, const FeatureOptions &Opts);

/// Hover on a `__shared__` declaration or a kernel's name: null when there is
/// nothing there.
nlohmann::json hoverAt(const Report &R, const std::string &Path,
                       const Document &Doc, Position P,
                       const FeatureOptions &Opts);

/// An inlay hint after each `__shared__` declaration of \p Path between lines
/// \p FromLine and \p ToLine (0-based, inclusive) with its bytes.
nlohmann::json inlayHintsFor(const Report &R, const std::string &Path,
                             const Document &Doc, unsigned FromLine,
                             unsigned ToLine, const FeatureOptions &Opts);

/// A code lens on each kernel of \p Path with its footprint per architecture.
nlohmann::json codeLensesFor(const Report &R, const std::string &Path,
                             const Document &Doc, const FeatureOptions &Opts);

/// `textDocument/codeAction`'s quick fixes for \p Diagnostics (the request's
/// context, as this server published them for the document \p Uri): for each
/// finding at its own place, a `// NOLINT(check)` at the end of its line,
/// where the line has no NOLINT yet.
nlohmann::json codeActionsFor(const std::string &Uri, const Document &Doc,
                              const std::vector<nlohmann::json> &Diagnostics,
                              const FeatureOptions &Opts);

/// `textDocument/documentSymbol`: each kernel of \p Path with its footprint
/// per architecture as its detail, and its `__shared__` variables declared in
/// \p Path as children, with their types and bytes.
nlohmann::json documentSymbolsFor(const Report &R, const std::string &Path,
                                  const Document &Doc,
                                  const FeatureOptions &Opts);

} // namespace lsp
} // namespace tilefit

#endif
