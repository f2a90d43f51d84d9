//===- fuzz_command_line.cpp - nvcc and clang command-line translation ----===//
//
// The first byte picks the compiler (nvcc or a clang, by several spellings) and
// whether the rest is one shell-quoted "command" string or an argv with one
// argument per line (the "arguments" form). The command is translated as the
// driver would.
//
//===----------------------------------------------------------------------===//
#include "FuzzInput.h"

#include "tilefit/frontend/CommandTranslation.h"
#include "tilefit/frontend/CompileCommand.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  using namespace tilefit;
  fuzz::FuzzInput In(Data, Size);
  static const char *const Compilers[] = {"nvcc",    "/usr/local/cuda/bin/nvcc",
                                          "clang++", "/usr/bin/clang-19",
                                          "c++",     "nvcc.exe",
                                          "ccache",  "clang"};
  uint8_t Mode = In.byte();
  frontend::CompileCommand C;
  C.Directory = "/work/project/build";
  C.File = "/work/project/src/k.cu";
  C.Origin = "fuzz";
  C.Arguments.push_back(Compilers[Mode % 8]);
  std::string_view Rest = In.rest();
  if (Mode & 8) {
    for (std::string &A :
         frontend::splitCommandLine(llvm::StringRef(Rest.data(), Rest.size())))
      C.Arguments.push_back(std::move(A));
  } else {
    while (!Rest.empty()) {
      size_t End = Rest.find('\n');
      C.Arguments.emplace_back(Rest.substr(0, End));
      Rest = End == std::string_view::npos ? std::string_view()
                                           : Rest.substr(End + 1);
    }
  }
  if (Mode & 16)
    C.Arguments.push_back(C.File);
  frontend::DeviceFlags F = frontend::translateCommand(C);
  (void)F;
  (void)frontend::isNvcc(C.Arguments.back());
  return 0;
}
