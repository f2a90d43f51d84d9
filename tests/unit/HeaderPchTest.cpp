//===- HeaderPchTest.cpp - The precompiled CUDA runtime headers go stale
//---===//
//
// The precompiled runtime headers hold what the parse includes ahead of the
// unit: the CUDA runtime wrapper, the toolkit's headers, tilefit's
// compatibility header and its stand-ins. When one of those changes, the header
// is never trusted again, also by a unit with errors of its own (whose parse
// without the header has errors too, so that "the parse did better without it"
// cannot tell).
//
//===----------------------------------------------------------------------===//
#include "../support/TestSupport.h"

#include "tilefit/frontend/HeaderPch.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>

namespace tilefit {
namespace frontend {
namespace {

// A kernel the parse finds, and an error of the unit's own after it.
const char *const Unit = R"(
__global__ void tile(float *o) {
  __shared__ float t[96];
  t[threadIdx.x % 96] = o[0];
  __syncthreads();
  o[threadIdx.x] = t[0];
}
void host() { undeclared_in_host(); }
)";

class HeaderPchTest : public test::TempDirTest {
protected:
  void SetUp() override {
    TempDirTest::SetUp();
    Env = test::environmentWithoutPch();
    if (!Env.Toolkit.found())
      GTEST_SKIP() << "no CUDA toolkit: nothing is precompiled without its "
                      "runtime headers";
    // A copy of tilefit's resource headers, which the test edits.
    Resources = Dir + "/share/include";
    std::filesystem::create_directories(Resources);
    std::filesystem::copy(Env.ResourceInclude, Resources,
                          std::filesystem::copy_options::recursive);
    Env.ResourceInclude = Resources;
    Main = write("unit.cu", Unit);
  }

  /// One run: a store of its own over the same folder, as a new tilefit process
  /// has.
  TranslationUnitFacts parse() {
    HeaderPchStore Store(Dir + "/pch");
    ParseEnvironment E = Env;
    E.Pch = &Store;
    std::vector<TranslationUnitFacts> Facts =
        test::parseFile(Main, {}, {"sm_90"}, E);
    EXPECT_EQ(Facts.size(), 1u);
    return Facts.empty() ? TranslationUnitFacts() : Facts[0];
  }

  static std::string loaded(const TranslationUnitFacts &TU) {
    for (const std::string &In : TU.Inputs)
      if (llvm::StringRef(In).ends_with(".pch"))
        return In;
    return "";
  }

  static void expectTheUnitsFacts(const TranslationUnitFacts &TU) {
    EXPECT_FALSE(TU.Failed);
    EXPECT_TRUE(TU.Partial) << "the unit's own error is reported";
    ASSERT_EQ(TU.Kernels.size(), 1u);
    EXPECT_EQ(TU.Kernels[0].Name, "tile");
  }

  /// Appends to \p Path and moves its time on, as an editor's save does.
  static void edit(const std::string &Path) {
    {
      std::ofstream Out(Path, std::ios::app);
      Out << "\n// edited\n";
    }
    auto Later =
        std::filesystem::last_write_time(Path) + std::chrono::seconds(5);
    std::filesystem::last_write_time(Path, Later);
  }

  ParseEnvironment Env;
  std::string Resources, Main;
};

TEST_F(HeaderPchTest, AnEditedCompatibilityHeaderIsPrecompiledAnew) {
  TranslationUnitFacts First = parse();
  expectTheUnitsFacts(First);
  const std::string Before = loaded(First);
  ASSERT_FALSE(Before.empty())
      << "the first parse builds and loads the precompiled header";
  // The files inside it are the parse's inputs too: a result stored for the
  // parse (the result cache) is valid only while they are unchanged.
  for (const std::string &Inside :
       {Resources + "/tilefit/cuda_compat.h",
        Resources + "/cuda-compat/texture_fetch_functions.h",
        Env.Toolkit.Path + "/include/cuda_runtime.h"}) {
    llvm::SmallString<256> Real;
    ASSERT_FALSE(llvm::sys::fs::real_path(Inside, Real)) << Inside;
    EXPECT_NE(
        std::find(First.Inputs.begin(), First.Inputs.end(), std::string(Real)),
        First.Inputs.end())
        << Inside
        << " is inside the precompiled header and not among the parse's inputs";
  }

  edit(Resources + "/tilefit/cuda_compat.h");
  TranslationUnitFacts Second = parse();
  expectTheUnitsFacts(Second);
  const std::string After = loaded(Second);
  EXPECT_FALSE(After.empty())
      << "the parse after the edit loads a precompiled header";
  EXPECT_NE(After, Before) << "built anew for the edited compatibility header";
}

TEST_F(HeaderPchTest, AUnitWithErrorsDropsAHeaderClangRejects) {
  TranslationUnitFacts First = parse();
  expectTheUnitsFacts(First);
  const std::string Stale = loaded(First);
  ASSERT_FALSE(Stale.empty());

  // A header inside the precompiled set, not one its key names: Clang finds it
  // changed.
  edit(Resources + "/cuda-compat/texture_fetch_functions.h");
  TranslationUnitFacts Second = parse();
  expectTheUnitsFacts(Second);
  EXPECT_TRUE(loaded(Second).empty())
      << "the rejected header is not among the inputs";
  EXPECT_FALSE(llvm::sys::fs::exists(Stale))
      << "the rejected precompiled header is removed";

  TranslationUnitFacts Third = parse();
  expectTheUnitsFacts(Third);
  EXPECT_FALSE(loaded(Third).empty())
      << "the next run builds it again and loads it";
}

} // namespace
} // namespace frontend
} // namespace tilefit
