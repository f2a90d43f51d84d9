//===- fuzz_nolint.cpp - NOLINT comment parsing ---------------------------===//
//
// The input is a source file. Its NOLINT comments are read, every line is asked
// about a few checks, and a report with findings (and notes) on its lines is
// filtered by them.
//
//===----------------------------------------------------------------------===//
#include "tilefit/model/Suppressions.h"

#include <algorithm>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  using namespace tilefit;
  std::string Text(reinterpret_cast<const char *>(Data), Size);
  const std::string File = "/work/project/k.cu";
  std::vector<Diagnostic> Problems;
  NolintMap Map = NolintMap::parse(Text, File, Problems);
  unsigned Lines =
      static_cast<unsigned>(std::count(Text.begin(), Text.end(), '\n')) + 2;
  static const char *const Checks[] = {"tilefit-budget", "tilefit-static-limit",
                                       "", "*", "clang-diagnostic-error"};
  for (unsigned L = 0; L <= Lines && L < 4096; ++L)
    for (const char *Check : Checks)
      (void)Map.suppresses(L, Check);

  Report R;
  for (unsigned L = 1; L <= Lines && L < 256; L += 3) {
    Diagnostic D;
    D.Level = Severity::Warning;
    D.Check = Checks[L % 5];
    D.Message = "finding";
    D.Loc = {File, L, 1};
    D.TranslationUnit = File;
    D.Notes.push_back({"note", {File, L + 1, 3}});
    R.Diagnostics.push_back(D);
  }
  applySuppressions(R,
                    [&](const std::string &Path) -> std::optional<std::string> {
                      if (Path == File)
                        return Text;
                      return std::nullopt;
                    });
  return 0;
}
