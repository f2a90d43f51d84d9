//===- TempDir.h ------------------------------------------------*- C++ -*-===//
// A private scratch folder for fuzz targets that read files.
#ifndef TILEFIT_FUZZ_TEMPDIR_H
#define TILEFIT_FUZZ_TEMPDIR_H

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace tilefit {
namespace fuzz {

/// The process's scratch folder under $TMPDIR (made on first use, removed at
/// exit).
class TempDir {
public:
  static const std::string &path() {
    static TempDir Dir;
    return Dir.Path;
  }
  /// Writes \p Text to \p Name in the scratch folder; returns its absolute
  /// path.
  static std::string write(const std::string &Name, std::string_view Text) {
    std::string P = path() + "/" + Name;
    std::ofstream Out(P, std::ios::binary | std::ios::trunc);
    Out.write(Text.data(), static_cast<std::streamsize>(Text.size()));
    return P;
  }

private:
  TempDir() {
    std::string Template =
        (std::filesystem::temp_directory_path() / "tilefit-fuzz-XXXXXX")
            .string();
    if (char *P = mkdtemp(Template.data()))
      Path = P;
    else
      std::abort();
  }
  ~TempDir() {
    std::error_code EC;
    std::filesystem::remove_all(Path, EC);
  }
  std::string Path;
};

} // namespace fuzz
} // namespace tilefit

#endif
