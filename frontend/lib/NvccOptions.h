//===- NvccOptions.h - nvcc's options, as a table ---------------*- C++ -*-===//
//
// nvcc's options are described in a table rather than in code: each entry
// names the spellings nvcc accepts, whether it takes a value, and what tilefit
// does with it (CommandTranslation.cpp applies it).
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_FRONTEND_NVCCOPTIONS_H
#define TILEFIT_FRONTEND_NVCCOPTIONS_H

#include "llvm/ADT/StringRef.h"

#include <initializer_list>

namespace tilefit {
namespace frontend {

enum class NvccAction {
  Drop,         ///< Accepted, irrelevant to parsing.
  Keep,         ///< Passed on as `-<clang spelling><value>`.
  Arch,         ///< -arch / --gpu-architecture
  Code,         ///< -code / --gpu-code
  Gencode,      ///< -gencode / --generate-code
  Rdc,          ///< -rdc=<bool>
  RdcOn,        ///< -dc, -dw
  Language,     ///< -x
  Std,          ///< -std / --std
  HostCompiler, ///< -Xcompiler / --compiler-options: keep -D/-I/-std among them
  ForwardUnknown, ///< -forward-unknown-to-host-compiler
  MaxRegisters,   ///< -maxrregcount: a register count for occupancy
  Define,         ///< A flag for which nvcc predefines a macro: passed on as
                  ///< `-D<Clang>`
  DefaultStream   ///< --default-stream: per-thread predefines a macro
};

struct NvccOption {
  std::initializer_list<const char *> Names; ///< With their leading dashes.
  bool TakesValue;
  NvccAction Action;
  const char *Clang = nullptr; ///< For Keep: the clang flag.
};

/// The entry of tilefit's table for nvcc's option named \p Name (with its
/// leading dashes, no value); null for a name the table does not have.
const NvccOption *findNvccOption(llvm::StringRef Name);
/// The same, else, for any other option nvcc documents (NvccHelp.def, from
/// `nvcc --help`: `-compress-mode`), an entry that drops it with its value;
/// null for a name nvcc does not have. Not for telling nvcc's command lines
/// from Clang's: many of the documented names are Clang's too (`-c`, `-E`).
const NvccOption *documentedNvccOption(llvm::StringRef Name);

} // namespace frontend
} // namespace tilefit

#endif
