//===- fuzz_response_file.cpp - Response files (@file, --options-file) ----===//
//
// The input is up to four files, separated by NUL bytes, written as r0 ... r3
// in a scratch folder. The command names r0 with `@`, and r1 and r2 with nvcc's
// --options-file; the files may name each other (nested expansion). The
// expanded command is then translated.
//
//===----------------------------------------------------------------------===//
#include "TempDir.h"

#include "tilefit/frontend/CommandTranslation.h"
#include "tilefit/frontend/CompileCommand.h"

#include "llvm/Support/Error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  using namespace tilefit;
  std::string_view Rest(reinterpret_cast<const char *>(Data), Size);
  for (int I = 0; I < 4; ++I) {
    size_t End = I == 3 ? std::string_view::npos : Rest.find('\0');
    fuzz::TempDir::write("r" + std::to_string(I), Rest.substr(0, End));
    Rest = End == std::string_view::npos ? std::string_view()
                                         : Rest.substr(End + 1);
  }
  frontend::CompileCommand C;
  C.Directory = fuzz::TempDir::path();
  C.File = C.Directory + "/k.cu";
  C.Origin = "fuzz";
  C.Arguments = {"nvcc", "@r0", "--options-file", "r1,r2", "-c", C.File};
  if (llvm::Error E = frontend::expandResponseFiles(C)) {
    llvm::consumeError(std::move(E));
    return 0;
  }
  frontend::DeviceFlags F = frontend::translateCommand(C);
  (void)F;
  return 0;
}
