//===- TestSupport.h - Shared helpers for tilefit's tests -------*- C++ -*-===//
#ifndef TILEFIT_TESTS_TESTSUPPORT_H
#define TILEFIT_TESTS_TESTSUPPORT_H

#include "tilefit/frontend/Parse.h"
#include "tilefit/model/Analysis.h"
#include "tilefit/model/Capacity.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tilefit {
namespace test {

std::string sourceDir();   ///< The repository.
std::string fixturesDir(); ///< tests/fixtures
std::string shareDir();    ///< build/share/tilefit
std::string binary();      ///< build/bin/tilefit

/// The built-in capacity database (data/capacity.json); aborts the test on
/// failure.
const CapacityDatabase &builtinDatabase();

/// How tilefit itself would parse: the toolkit found by the usual search,
/// tilefit's resources, and (as with its default cache folder) the CUDA runtime
/// headers precompiled, into a folder of the build tree.
const frontend::ParseEnvironment &environment();

/// The same without the precompiled headers: every parse reads the CUDA runtime
/// headers.
const frontend::ParseEnvironment &environmentWithoutPch();

/// The facts of \p File parsed as `tilefit --arch=<Archs> File -- <Flags>`, one
/// per architecture.
std::vector<TranslationUnitFacts>
parseFile(const std::string &File, const std::vector<std::string> &Flags,
          const std::vector<std::string> &Archs,
          const frontend::ParseEnvironment &Env);

/// What differs between the reports of \p Sliced (parsed with body slicing,
/// matchers/BodySlicer.h) and \p Whole (every body instantiated), analysed
/// with \p Db: one line per difference, none when every figure, finding and
/// note is the same. The register view of a kernel whose per-thread arrays
/// slicing left uncounted (and that kernel's tilefit-registers findings) is
/// left out of both: slicing says so instead of a figure.
std::vector<std::string>
slicingDifferences(const std::vector<TranslationUnitFacts> &Sliced,
                   const std::vector<TranslationUnitFacts> &Whole,
                   const CapacityDatabase &Db);

/// The same for two JSON reports (`--format=json`), as text.
std::vector<std::string> slicingDifferences(const std::string &SlicedJson,
                                            const std::string &WholeJson);

/// Runs the front end and the model on \p File as `tilefit --arch=<Archs> File
/// -- <Flags>`.
Report analyzeFile(const std::string &File,
                   const std::vector<std::string> &Flags,
                   const std::vector<std::string> &Archs,
                   const CapacityDatabase &Db, double Budget = 0.9);

/// Runs a command (no shell), returning its exit status; stdout and stderr are
/// captured.
struct CommandResult {
  int Status = -1;
  std::string Out, Err;
  bool TimedOut = false; ///< Killed after the time limit (Status is then -2).
};
CommandResult runCommand(const std::vector<std::string> &Argv,
                         const std::string &Cwd = "");

/// How runCommand runs a command beyond its arguments.
struct RunOptions {
  std::string Cwd;        ///< Working folder; empty: the test's own.
  unsigned Seconds = 600; ///< Killed after this long (CommandResult::TimedOut).
  /// The whole environment ("NAME=value" each); unset: the test's own.
  std::optional<std::vector<std::string>> Env;
};
CommandResult runCommand(const std::vector<std::string> &Argv,
                         const RunOptions &Opts);

/// ptxas's "bytes smem" per kernel (mangled name) and architecture, from
/// `nvcc -c -Xptxas -v` with one -gencode per architecture. Empty Error on
/// success.
struct PtxasFigures {
  std::string Error;
  /// Figures[arch][mangled] = bytes.
  std::map<std::string, std::map<std::string, uint64_t>> Figures;
  /// ConstantBytes[arch]: the module's `__constant__` data, where ptxas says
  /// it: "N bytes cmem[3]" (printed up to sm_89, and only when nonzero) or the
  /// figure of "File uses too much global constant data (0x... bytes, ...)"
  /// (every architecture). Absent otherwise.
  std::map<std::string, uint64_t> ConstantBytes;
  /// What ptxas gave each kernel besides shared memory: "Used N registers",
  /// and its "Function properties" line.
  struct Resources {
    uint64_t Registers = 0;
    uint64_t StackFrame = 0;  ///< "N bytes stack frame"
    uint64_t SpillStores = 0; ///< "N bytes spill stores"
  };
  /// KernelResources[arch][mangled].
  std::map<std::string, std::map<std::string, Resources>> KernelResources;
  /// Figures are the device-linked program's (nvlink -v), not ptxas's.
  bool Linked = false;
  /// -rdc, but the unit alone does not link (a symbol defined elsewhere):
  /// Figures are ptxas's per-object ones.
  bool Unlinked = false;
};
/// With -rdc (relocatable device code) Figures are the device-linked
/// program's (Linked): ptxas prints a per-object estimate there, and the
/// program uses what nvlink lays out.
PtxasFigures ptxasFigures(const std::string &File,
                          const std::vector<std::string> &Flags,
                          const std::vector<std::string> &Archs);
/// ptxas's own figures, per object, even with -rdc.
PtxasFigures ptxasFiguresPerObject(const std::string &File,
                                   const std::vector<std::string> &Flags,
                                   const std::vector<std::string> &Archs);
/// Whether nvcc \p Flags compile relocatable device code (-rdc=true, -dc).
bool relocatableDeviceCode(const std::vector<std::string> &Flags);

/// Reads ptxas's `-v` lines ("Compiling entry function 'K' for 'sm_XX'", then
/// "Used ... N bytes smem"; before them the module's "N bytes gmem, M bytes
/// cmem[3]" and a constant-data error) out of a compiler's output into \p Into.
void parsePtxasOutput(const std::string &Text, PtxasFigures &Into);

/// Whether nvcc is on PATH.
bool haveNvcc();

/// A test with a fresh temporary folder, removed afterwards.
class TempDirTest : public ::testing::Test {
protected:
  void SetUp() override;
  void TearDown() override;
  /// Writes \p Text to \p Name (relative to the folder, parents created);
  /// returns its path.
  std::string write(const std::string &Name, const std::string &Text);
  /// Gives the file at \p Path (in the folder) the new content \p Text and a
  /// modification time 2 s after its last one, the clock's resolution aside.
  void rewrite(const std::string &Path, const std::string &Text);
  std::string Dir;
};

/// A gtest-safe test name from a fixture path: its stem, other characters as
/// '_'.
std::string fixtureTestName(const ::testing::TestParamInfo<std::string> &Info);

} // namespace test
} // namespace tilefit

#endif
