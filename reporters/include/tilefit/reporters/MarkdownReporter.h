//===- MarkdownReporter.h - Tables for pull requests and job summaries -*- C++ -*-===//
#ifndef TILEFIT_REPORTERS_MARKDOWNREPORTER_H
#define TILEFIT_REPORTERS_MARKDOWNREPORTER_H

#include "tilefit/model/Report.h"

#include <ostream>
#include <string>

namespace tilefit {

/// The per-kernel, per-architecture table and the findings, as GitHub-flavoured Markdown.
/// Paths under \p SourceRoot are written relative to it.
void renderMarkdown(const Report &R, const std::string &SourceRoot, std::ostream &OS);

/// A path relative to \p Root when under it (for reports meant for people).
std::string relativeTo(const std::string &File, const std::string &Root);

} // namespace tilefit

#endif
