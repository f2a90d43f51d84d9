//===- FilesRead.h - The files a parse read ---------------------*- C++ -*-===//
//
// Internal to the front end: shared by the parses (ParseUnit.cpp) and the
// preambles (PreambleStore.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_FRONTEND_FILESREAD_H
#define TILEFIT_FRONTEND_FILESREAD_H

#include <string>
#include <vector>

namespace clang {
class SourceManager;
}

namespace tilefit {
namespace frontend {

/// The files a parse read, absolute, sorted. Files a precompiled header names
/// but this parse did not open are left out: the header itself is among the
/// files read, and Clang checks its inputs (HeaderPchStore::use); a preamble's
/// are added from its own build.
std::vector<std::string> filesRead(const clang::SourceManager &SM);

} // namespace frontend
} // namespace tilefit

#endif
