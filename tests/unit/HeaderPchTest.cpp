//===- HeaderPchTest.cpp - The precompiled CUDA runtime headers go stale --===//
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

#include "tilefit/model/CallGraph.h"
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

namespace tilefit {
namespace frontend {
namespace {

// Units of one project that start with the same #include lines: the lines are
// precompiled once, after the runtime headers, and every unit loads them.
class SharedIncludesTest : public test::TempDirTest {
protected:
  void SetUp() override {
    TempDirTest::SetUp();
    Env = test::environmentWithoutPch();
    if (!Env.Toolkit.found())
      GTEST_SKIP() << "no CUDA toolkit: nothing is precompiled without its "
                      "runtime headers";
    write("src/common.cuh", R"(#pragma once
template <int N> struct Tile { float v[N]; };
__device__ float helper(float x) {
  __shared__ float scratch[64];
  scratch[threadIdx.x % 64] = x;
  __syncthreads();
  return scratch[0];
}
)");
    for (const char *Name : {"a", "b"})
      Units.push_back(write(std::string("src/") + Name + ".cu", std::string(
                                                                    R"(// unit
#include <cooperative_groups.h>
#include "common.cuh"

__global__ void k_)") + Name + R"((float *o) {
  __shared__ Tile<)" + (Name[0] == 'a' ? "128" : "256") + R"(> t;
  t.v[threadIdx.x % 8] = helper(o[0]);
  o[threadIdx.x] = t.v[0];
}
)"));
  }

  /// One run over both units (or \p Over): a store of its own over the same
  /// folder, as a new tilefit process has (none: no precompiled headers);
  /// \p Globs as a configuration's PrecompileIncludes.
  std::vector<TranslationUnitFacts>
  run(bool WithPch, const std::vector<std::string> &Over = {},
      const std::vector<std::string> &Globs = {}) {
    std::vector<CompileCommand> Commands;
    for (const std::string &U : Over.empty() ? Units : Over) {
      CompileCommand C;
      C.File = U;
      C.Directory = Dir;
      C.Arguments = {"clang++", Std, U};
      Commands.push_back(C);
    }
    HeaderPchStore Store(Dir + "/pch");
    ParseEnvironment E = Env;
    if (WithPch)
      E.Pch = &Store;
    std::vector<UnitJob> Jobs = planJobs(Commands, {"sm_90"});
    for (UnitJob &J : Jobs)
      J.PrecompileIncludes = Globs;
    return parseAll(Jobs, E, 1);
  }

  /// A third unit, whose leading #include lines no other starts with.
  std::string writeThirdUnit() {
    return write("src/c.cu", R"(#include <cuda/pipeline>
#include "common.cuh"

__global__ void k_c(float *o) {
  __shared__ Tile<32> t;
  t.v[threadIdx.x % 8] = helper(o[0]);
  o[threadIdx.x] = t.v[0];
}
)");
  }

  std::vector<std::string> files(llvm::StringRef Prefix, llvm::StringRef Ext) {
    std::vector<std::string> Out;
    std::error_code EC;
    for (auto &E : std::filesystem::directory_iterator(Dir + "/pch", EC)) {
      std::string Name = E.path().filename().string();
      if (llvm::StringRef(Name).starts_with(Prefix) &&
          llvm::StringRef(Name).ends_with(Ext))
        Out.push_back(Name);
    }
    return Out;
  }

  /// The figures of a run: each kernel's name, variables and their sizes.
  static std::string figures(std::vector<TranslationUnitFacts> Facts) {
    std::string Out;
    for (TranslationUnitFacts &TU : Facts) {
      EXPECT_FALSE(TU.Failed || TU.Partial) << TU.File;
      resolveCallGraph(TU); // The model's stage: what each kernel reaches.
      for (const KernelFacts &K : TU.Kernels) {
        Out += K.Name + ":";
        for (size_t V : K.Reached)
          Out += " " + TU.Vars[V].QualifiedName + "=" +
                 std::to_string(TU.Vars[V].Bytes.value_or(0)) + "@" +
                 std::to_string(TU.Vars[V].Loc.Line);
        Out += "\n";
      }
    }
    return Out;
  }

  static std::string read(const std::string &Path) {
    std::ifstream In(Path);
    return std::string(std::istreambuf_iterator<char>(In), {});
  }

  static bool loadedPrefix(const TranslationUnitFacts &TU) {
    return std::any_of(TU.Inputs.begin(), TU.Inputs.end(),
                       [](const std::string &In) {
                         return llvm::StringRef(In).contains("/prefix-") &&
                                llvm::StringRef(In).ends_with(".pch");
                       });
  }

  ParseEnvironment Env;
  std::vector<std::string> Units;
  std::string Std = "-std=c++17"; ///< The units' standard.
};

TEST_F(SharedIncludesTest, PrecompiledOnceAndEveryFigureAsWithout) {
  const std::string Plain = figures(run(false));
  EXPECT_NE(Plain.find("k_a: k_a::t=512@6 helper::scratch=256@4"),
            std::string::npos)
      << Plain;
  std::vector<TranslationUnitFacts> With = run(true);
  EXPECT_EQ(figures(With), Plain);
  EXPECT_EQ(files("prefix-", ".pch").size(), 1u) << "one for both units";
  for (const TranslationUnitFacts &TU : With) {
    EXPECT_TRUE(loadedPrefix(TU)) << TU.File;
    // The project's header is among the parse's inputs (the result cache
    // checks it).
    EXPECT_TRUE(std::any_of(
        TU.Inputs.begin(), TU.Inputs.end(), [](const std::string &In) {
          return llvm::StringRef(In).ends_with("common.cuh");
        }));
  }
  // The next run loads it without building.
  const auto Time = std::filesystem::last_write_time(
      Dir + "/pch/" + files("prefix-", ".pch")[0]);
  EXPECT_EQ(figures(run(true)), Plain);
  EXPECT_EQ(std::filesystem::last_write_time(Dir + "/pch/" +
                                             files("prefix-", ".pch")[0]),
            Time);
}

TEST_F(SharedIncludesTest, AHeaderEditedOnDiskIsPrecompiledAnew) {
  run(true);
  ASSERT_EQ(files("prefix-", ".pch").size(), 1u);
  // The tile grows: the figures follow the header on disk, not the old
  // precompiled one.
  {
    std::ofstream Out(Dir + "/src/common.cuh", std::ios::app);
    Out << "template <> struct Tile<128> { float v[200]; };\n";
  }
  auto Later = std::filesystem::last_write_time(Dir + "/src/common.cuh") +
               std::chrono::seconds(5);
  std::filesystem::last_write_time(Dir + "/src/common.cuh", Later);
  const std::string Plain = figures(run(false));
  EXPECT_NE(Plain.find("k_a::t=800"), std::string::npos) << Plain;
  EXPECT_EQ(figures(run(true)), Plain) << "the stale header was used";
  EXPECT_EQ(figures(run(true)), Plain);
}

TEST_F(SharedIncludesTest,
       AUnitAloneWithItsIncludesHasThemPrecompiledWhenNamed) {
  const std::string C = writeThirdUnit();
  std::vector<std::string> All = Units;
  All.push_back(C);
  const std::string Plain = figures(run(false, All));
  EXPECT_NE(Plain.find("k_c: k_c::t=128@5 helper::scratch=256@4"),
            std::string::npos)
      << Plain;
  // Nothing names its headers: the two units' shared lines only.
  std::vector<TranslationUnitFacts> Shared = run(true, All);
  EXPECT_EQ(figures(Shared), Plain);
  EXPECT_EQ(files("prefix-", ".pch").size(), 1u);
  EXPECT_FALSE(loadedPrefix(Shared[2])) << "no other unit starts with them";
  // A configuration names them: precompiled for it alone too.
  std::vector<TranslationUnitFacts> Named = run(true, All, {"cuda/*"});
  EXPECT_EQ(figures(Named), Plain);
  EXPECT_EQ(files("prefix-", ".pch").size(), 2u);
  EXPECT_TRUE(loadedPrefix(Named[2])) << Named[2].File;
  EXPECT_TRUE(loadedPrefix(Named[0])) << "the shared prefix stays";
}

TEST_F(SharedIncludesTest, ARunOfOneCommandPrecompilesItsOwnLines) {
  const std::string C = writeThirdUnit();
  const std::string Plain = figures(run(false, {C}));
  std::vector<TranslationUnitFacts> With = run(true, {C});
  EXPECT_EQ(figures(With), Plain);
  ASSERT_EQ(With.size(), 1u);
  EXPECT_TRUE(loadedPrefix(With[0])) << "the next run of it loads them";
  EXPECT_EQ(files("prefix-", ".pch").size(), 1u);
}

TEST_F(SharedIncludesTest, AHeaderWithoutAGuardIsNotPrecompiled) {
  const std::string Guarded = read(Dir + "/src/common.cuh");
  write("src/common.cuh",
        Guarded.substr(std::string("#pragma once\n").size()));
  std::filesystem::remove_all(Dir + "/pch");
  const std::string Plain = figures(run(false));
  EXPECT_EQ(figures(run(true)), Plain);
  EXPECT_TRUE(files("prefix-", ".pch").empty());
  EXPECT_EQ(files("prefix-", ".refused").size(), 1u) << "remembered";
  EXPECT_EQ(files("", ".pch").size(), 1u) << "the runtime headers alone";
}

/// The warnings, and whether host launches were skipped, of a run.
std::string directivesSeen(const std::vector<TranslationUnitFacts> &Facts) {
  std::string Out;
  for (const TranslationUnitFacts &TU : Facts) {
    Out += TU.File + (TU.SkippedHostCalls ? " skipped host calls\n" : "\n");
    for (const Diagnostic &D : TU.Diagnostics)
      Out += D.Loc.File + ":" + std::to_string(D.Loc.Line) + ":" +
             std::to_string(D.Loc.Column) + ": " + D.Check + ": " + D.Message +
             "\n";
  }
  return Out;
}

// A header with directives on __CUDA_ARCH__ and on a macro only nvcc defines
// (CUTLASS's are full of them) is precompiled all the same: the prefix's build
// watches what they skip, and the parses that load it say what a plain parse
// says, under C++17 and C++20.
TEST_F(SharedIncludesTest, AHeaderWithArchAndNvccDirectivesIsPrecompiled) {
  write("src/common.cuh", read(Dir + "/src/common.cuh") + R"(
#ifdef __NVCC__
__global__ void nvcc_only_kernel(float *o) { o[0] = 1; }
#endif
#ifndef __CUDA_ARCH__
template <class K> void launch_from_host(K k, float *o) { k<<<1, 1>>>(o); }
#endif
#if __CUDA_ARCH__ >= 800
__device__ float arch_helper(float x) {
  __shared__ float s800[32];
  s800[threadIdx.x % 32] = x;
  return s800[1];
}
#else
__device__ float arch_helper(float x) {
  __shared__ float s_old[16];
  s_old[threadIdx.x % 16] = x;
  return s_old[1];
}
#endif
)");
  for (const char *Name : {"a", "b"})
    write(std::string("src/") + Name + ".cu", read(Dir + "/src/" + Name + ".cu") +
                                                  "__global__ void arch_" + Name +
                                                  "(float *o) { o[0] = "
                                                  "arch_helper(o[1]); }\n");
  for (const char *Standard : {"-std=c++17", "-std=c++20"}) {
    SCOPED_TRACE(Standard);
    Std = Standard;
    std::filesystem::remove_all(Dir + "/pch");
    std::vector<TranslationUnitFacts> Plain = run(false);
    ASSERT_NE(figures(Plain).find("arch_a: arch_helper::s800=128"),
              std::string::npos)
        << figures(Plain);
    const std::string Seen = directivesSeen(Plain);
    EXPECT_NE(Seen.find("common.cuh:10:1: tilefit-input: this block holds a "
                        "kernel"),
              std::string::npos)
        << Seen;
    EXPECT_NE(Seen.find("skipped host calls"), std::string::npos) << Seen;
    for (int Run = 0; Run < 2; ++Run) { // built, then loaded
      std::vector<TranslationUnitFacts> With = run(true);
      EXPECT_EQ(figures(With), figures(Plain)) << "run " << Run;
      EXPECT_EQ(directivesSeen(With), Seen) << "run " << Run;
      for (const TranslationUnitFacts &TU : With)
        EXPECT_TRUE(loadedPrefix(TU)) << TU.File;
    }
    EXPECT_EQ(files("prefix-", ".pch").size(), 1u);
    EXPECT_TRUE(files("prefix-", ".refused").empty());
  }
}

} // namespace
} // namespace frontend
} // namespace tilefit
