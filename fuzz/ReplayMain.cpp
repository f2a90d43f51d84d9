//===- ReplayMain.cpp - Runs a fuzz target over files, without libFuzzer --===//
//
// In the normal build (g++, no fuzzing engine) each fuzz target links this main
// instead of libFuzzer's: it calls LLVMFuzzerTestOneInput once per file of the
// folders or files named on the command line (the seed corpus and the
// regressions), so ctest replays every input that ever found a bug. It fails
// when a folder is missing; a crash fails it by itself.
//
//===----------------------------------------------------------------------===//
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size);
extern "C" int LLVMFuzzerInitialize(int *Argc, char ***Argv)
    __attribute__((weak));

namespace fs = std::filesystem;

int main(int Argc, char **Argv) {
  if (LLVMFuzzerInitialize)
    LLVMFuzzerInitialize(&Argc, &Argv);
  std::vector<fs::path> Files;
  for (int I = 1; I < Argc; ++I) {
    fs::path P(Argv[I]);
    std::error_code EC;
    if (fs::is_directory(P, EC)) {
      for (const auto &E : fs::recursive_directory_iterator(P, EC))
        if (E.is_regular_file() &&
            E.path().filename().string()[0] != '.') // Not .gitkeep.
          Files.push_back(E.path());
    } else if (fs::is_regular_file(P, EC)) {
      Files.push_back(P);
    } else {
      std::fprintf(stderr, "replay: no such file or folder: %s\n", Argv[I]);
      return 2;
    }
  }
  std::sort(Files.begin(), Files.end());
  for (const fs::path &P : Files) {
    std::ifstream In(P, std::ios::binary);
    std::vector<uint8_t> Bytes((std::istreambuf_iterator<char>(In)),
                               std::istreambuf_iterator<char>());
    std::fprintf(stderr, "replay: %s (%zu bytes)\n", P.c_str(), Bytes.size());
    // A copy of exactly Size bytes, so that ASan sees a read past the end as
    // libFuzzer would.
    std::vector<uint8_t> Exact(Bytes);
    Exact.shrink_to_fit();
    static uint8_t None =
        0; // libFuzzer never passes a null pointer, even for 0 bytes.
    LLVMFuzzerTestOneInput(Exact.empty() ? &None : Exact.data(), Exact.size());
  }
  std::fprintf(stderr, "replay: %zu inputs\n", Files.size());
  return 0;
}
