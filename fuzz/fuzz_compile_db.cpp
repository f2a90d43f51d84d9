//===- fuzz_compile_db.cpp - The compilation-database loader --------------===//
//
// The input is a compile_commands.json. Every command it yields goes through
// the same steps the driver takes: response-file expansion (relative to the
// entry's directory) and the translation of its flags into clang's.
//
//===----------------------------------------------------------------------===//
#include "TempDir.h"

#include "tilefit/frontend/CommandTranslation.h"
#include "tilefit/frontend/CompileCommand.h"

#include "llvm/Support/Error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  using namespace tilefit;
  std::string Db = fuzz::TempDir::write(
      "compile_commands.json",
      std::string_view(reinterpret_cast<const char *>(Data), Size));
  std::vector<std::string> Warnings;
  auto Commands = frontend::loadCompilationDatabase(Db, Warnings);
  if (!Commands) {
    llvm::consumeError(Commands.takeError());
    return 0;
  }
  for (frontend::CompileCommand &C : *Commands) {
    // Response files are read relative to the entry's directory; the fuzzer
    // only ever names files by what it writes, and reading others (absolute
    // paths) does no harm.
    if (llvm::Error E = frontend::expandResponseFiles(C)) {
      llvm::consumeError(std::move(E));
      continue;
    }
    frontend::DeviceFlags F = frontend::translateCommand(C);
    (void)F;
  }
  return 0;
}
