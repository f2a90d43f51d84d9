//===- CacheTest.cpp - The result cache: hits, misses, corruption, races --===//
#include "CliFixture.h"

#include "tilefit/frontend/Parse.h"
#include "tilefit/model/FactsJson.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include "llvm/Support/MemoryBuffer.h"

#include <fstream>
#include <thread>

namespace tilefit {
namespace test {
namespace {

class ResultCacheTest : public CliTest {
protected:
  void SetUp() override {
    CliTest::SetUp();
    Cache = Dir + "/cache";
    // Two units: a.cu reads tile.cuh, b.cu does not.
    write("tile.cuh", "#pragma once\nconstexpr int kTile = 256;\n");
    A = write("a.cu", "#include \"tile.cuh\"\n__global__ void a(float *o) {\n"
                      "  __shared__ float t[kTile];\n  t[threadIdx.x] = o[0];\n"
                      "  __syncthreads();\n  o[1] = t[threadIdx.x + 1];\n}\n");
    B = write("b.cu",
              "__global__ void b(double *o) {\n  __shared__ double u[100];\n"
              "  u[threadIdx.x] = o[0];\n  __syncthreads();\n  o[1] = "
              "u[threadIdx.x + 1];\n}\n");
  }

  CommandResult run(std::vector<std::string> Extra = {},
                    std::vector<std::string> Flags = {}) {
    std::vector<std::string> Args = {"--arch=sm_80,sm_90", "--format=json",
                                     "--cache-stats", "--cache-dir=" + Cache,
                                     "--no-cuda-toolkit"};
    Args.insert(Args.end(), Extra.begin(), Extra.end());
    Args.insert(Args.end(), {A, B, "--"});
    Args.insert(Args.end(), Flags.begin(), Flags.end());
    return tilefit(Args);
  }

  static std::string stats(const CommandResult &R) {
    size_t At = R.Err.find("hit(s)");
    if (At == std::string::npos)
      return "no stats in: " + R.Err;
    size_t Start = R.Err.rfind(": ", At);
    return R.Err.substr(Start + 2, R.Err.find('\n', At) - Start - 2);
  }

  std::vector<std::string> cacheFiles() {
    std::vector<std::string> Files;
    std::error_code EC;
    for (llvm::sys::fs::recursive_directory_iterator It(Cache, EC), End;
         It != End && !EC; It.increment(EC))
      if (llvm::sys::fs::is_regular_file(It->path()) &&
          llvm::sys::path::filename(It->path()) != "stats")
        Files.push_back(It->path());
    return Files;
  }

  std::string Cache, A, B;
};

TEST_F(ResultCacheTest, ASecondRunIsAllHitsWithTheSameReport) {
  CommandResult First = run();
  ASSERT_EQ(First.Status, 0) << First.Err;
  EXPECT_EQ(stats(First), "0 hit(s), 4 miss(es)");
  CommandResult Second = run();
  EXPECT_EQ(stats(Second), "4 hit(s), 0 miss(es)");
  EXPECT_EQ(Second.Out, First.Out) << "the report does not depend on the cache";
  nlohmann::json J = json(Second);
  EXPECT_EQ(J["kernels"].size(), 4u);
  // And the same as a run without it.
  CommandResult Uncached = run({"--no-cache"});
  EXPECT_EQ(Uncached.Out, First.Out);
  EXPECT_EQ(Uncached.Err.find("hit(s)"), std::string::npos);
}

TEST_F(ResultCacheTest, AHeaderEditInvalidatesExactlyTheUnitsThatReadIt) {
  ASSERT_EQ(run().Status, 0);
  write("tile.cuh", "#pragma once\nconstexpr int kTile = 512;\n");
  CommandResult R = run();
  EXPECT_EQ(stats(R), "2 hit(s), 2 miss(es)")
      << "a.cu on both architectures, not b.cu";
  nlohmann::json J = json(R);
  for (const auto &K : J["kernels"])
    if (K["name"] == "a") {
      EXPECT_EQ(K["static_smem_bytes"], 2048) << "the new header's figure";
    }
  // Touching a file without changing it keeps the entries (its content is the
  // same).
  write("tile.cuh", "#pragma once\nconstexpr int kTile = 512;\n");
  EXPECT_EQ(stats(run()), "4 hit(s), 0 miss(es)");
  // An edit to the unit itself.
  write("b.cu", "__global__ void b(double *o) {\n  __shared__ double u[200];\n"
                "  u[threadIdx.x] = o[0];\n  __syncthreads();\n  o[1] = "
                "u[threadIdx.x + 1];\n}\n");
  EXPECT_EQ(stats(run()), "2 hit(s), 2 miss(es)");
  // Other flags are other entries.
  EXPECT_EQ(stats(run({}, {"-DUNUSED=1"})), "0 hit(s), 4 miss(es)");
}

TEST_F(ResultCacheTest, CorruptedEntriesAreIgnoredAndReplaced) {
  CommandResult First = run();
  ASSERT_EQ(First.Status, 0);
  std::vector<std::string> Files = cacheFiles();
  ASSERT_FALSE(Files.empty());
  int I = 0;
  for (const std::string &F : Files) {
    std::ofstream Out(F, std::ios::binary | std::ios::trunc);
    // Garbage, a truncated header, and a valid header over broken data, in
    // turn.
    if (I % 3 == 0)
      Out << "garbage";
    else if (I % 3 == 1)
      Out << "TFC1";
    else
      Out << std::string("TFC1\x10\0\0\0\0\0\0\0not zlib at all", 27);
    ++I;
  }
  CommandResult R = run();
  EXPECT_EQ(R.Status, 0) << R.Err;
  EXPECT_EQ(stats(R), "0 hit(s), 4 miss(es)");
  EXPECT_EQ(R.Out, First.Out);
  EXPECT_EQ(stats(run()), "4 hit(s), 0 miss(es)") << "replaced";
  // A facts document from somewhere else is refused, not trusted.
  EXPECT_FALSE(
      factsFromJson("{\"schema\":\"tilefit-facts/1\",\"facts\":{\"Vars\":3}}")
          .has_value());
  EXPECT_FALSE(factsFromJson("[]").has_value());
}

TEST_F(ResultCacheTest, ConcurrentRunsShareTheFolderSafely) {
  std::vector<CommandResult> Results(4);
  std::vector<std::thread> Runs;
  for (size_t I = 0; I < Results.size(); ++I)
    Runs.emplace_back([&, I] { Results[I] = run({"-j", "1"}); });
  for (std::thread &T : Runs)
    T.join();
  for (const CommandResult &R : Results) {
    EXPECT_EQ(R.Status, 0) << R.Err;
    EXPECT_EQ(R.Out, Results[0].Out);
  }
  for (const std::string &F : cacheFiles())
    EXPECT_FALSE(llvm::StringRef(F).ends_with(".tmp")) << F << " left behind";
  EXPECT_EQ(stats(run()), "4 hit(s), 0 miss(es)");
}

TEST_F(ResultCacheTest, SizeBoundAndNoCache) {
  CommandResult R = run({"--cache-max-size=0"});
  ASSERT_EQ(R.Status, 0);
  EXPECT_TRUE(cacheFiles().size() <= 1u)
      << "entries over the bound are removed";
  llvm::sys::fs::remove_directories(Cache);
  R = run({"--no-cache"});
  EXPECT_FALSE(llvm::sys::fs::exists(Cache)) << "--no-cache writes nothing";
}

/// With the CUDA toolkit: the runtime headers are precompiled into the cache
/// folder.
class PrecompiledHeadersTest : public ResultCacheTest {
protected:
  void SetUp() override {
    ResultCacheTest::SetUp();
    // A unit that includes headers of the precompiled set and of the C++
    // library.
    C = write(
        "c.cu",
        "#include <cuda_runtime.h>\n#include <cmath>\n#include <cstdint>\n"
        "__global__ void c(float *o) {\n  __shared__ float t[64][65];\n"
        "  t[threadIdx.y][threadIdx.x] = sqrtf(o[0]);\n  __syncthreads();\n"
        "  o[1] = t[threadIdx.x][threadIdx.y];\n}\n");
  }

  CommandResult runC(std::vector<std::string> Extra = {}) {
    std::vector<std::string> Args = {"--arch=sm_90", "--format=json",
                                     "--cache-stats", "--cache-dir=" + Cache};
    Args.insert(Args.end(), Extra.begin(), Extra.end());
    Args.insert(Args.end(), {C, "--", "-std=c++17"});
    return tilefit(Args);
  }

  std::vector<std::string> pchFiles() {
    std::vector<std::string> Out;
    for (const std::string &F : cacheFiles())
      if (llvm::StringRef(F).ends_with(".pch"))
        Out.push_back(F);
    return Out;
  }

  std::string C;
};

TEST_F(PrecompiledHeadersTest, BuiltOnceReusedAndTheResultCacheStillHits) {
  CommandResult First = runC();
  ASSERT_EQ(First.Status, 0) << First.Err;
  EXPECT_EQ(stats(First), "0 hit(s), 1 miss(es)");
  ASSERT_EQ(pchFiles().size(), 1u)
      << "the CUDA runtime headers, precompiled for sm_90";
  // The parse that loads the precompiled header is stored and found again.
  EXPECT_EQ(stats(runC()), "1 hit(s), 0 miss(es)");
  CommandResult Uncached = runC({"--no-cache"});
  EXPECT_EQ(Uncached.Out, First.Out)
      << "the report does not depend on the precompiled header";
  nlohmann::json J = json(First);
  ASSERT_EQ(J["kernels"].size(), 1u);
  EXPECT_EQ(J["kernels"][0]["static_smem_bytes"], 64 * 65 * 4);
  // An edit of the unit parses again, with the same precompiled header.
  auto Text = llvm::MemoryBuffer::getFile(C);
  ASSERT_TRUE(static_cast<bool>(Text));
  write("c.cu", "// edited\n" + (*Text)->getBuffer().str());
  EXPECT_EQ(stats(runC()), "0 hit(s), 1 miss(es)");
  EXPECT_EQ(pchFiles().size(), 1u);
}

// The precompiled runtime headers are one per option set, not one per unit: the
// unit's own file (the command line's input) is not part of their key. Three
// units with the same flags, in two folders, for two architectures: two
// precompiled headers.
TEST_F(PrecompiledHeadersTest, OnePerArchitectureForUnitsWithTheSameFlags) {
  auto Text = llvm::MemoryBuffer::getFile(C);
  ASSERT_TRUE(static_cast<bool>(Text));
  std::string D = write("d.cu", (*Text)->getBuffer().str());
  std::string E = write("sub/e.cu", (*Text)->getBuffer().str());
  CommandResult R =
      tilefit({"--arch=sm_80,sm_90", "--format=json", "--cache-dir=" + Cache, C,
               D, E, "--", "-std=c++17"});
  ASSERT_EQ(R.Status, 0) << R.Err;
  EXPECT_EQ(json(R)["kernels"].size(), 6u);
  EXPECT_EQ(pchFiles().size(), 2u) << "one per architecture";
}

// Leading #include lines no other unit starts with are precompiled where the
// unit's configuration names them (PrecompileIncludes), and only there.
TEST_F(PrecompiledHeadersTest, AConfigurationNamesTheIncludesToPrecompile) {
  std::string D =
      write("d.cu", "#include <cstdint>\n__global__ void d(int *o) {\n"
                    "  __shared__ int32_t s[32];\n  s[threadIdx.x] = o[0];\n"
                    "  __syncthreads();\n  o[1] = s[threadIdx.x + 1];\n}\n");
  auto Run = [&](const std::string &Folder) {
    return tilefit({"--arch=sm_90", "--format=json", "--cache-dir=" + Folder, C,
                    D, "--", "-std=c++17"});
  };
  auto Prefixes = [&](const std::string &Folder) {
    size_t N = 0;
    std::error_code EC;
    for (llvm::sys::fs::recursive_directory_iterator It(Folder, EC), End;
         It != End && !EC; It.increment(EC)) {
      llvm::StringRef Name = llvm::sys::path::filename(It->path());
      N += Name.starts_with("prefix-") && Name.ends_with(".pch");
    }
    return N;
  };
  CommandResult Plain = Run(Dir + "/plain");
  ASSERT_EQ(Plain.Status, 0) << Plain.Err;
  EXPECT_EQ(Prefixes(Dir + "/plain"), 0u) << "the two units share no line";
  write(".tilefit.yaml", "PrecompileIncludes: ['cm*']\n");
  CommandResult Named = Run(Dir + "/named");
  ASSERT_EQ(Named.Status, 0) << Named.Err;
  EXPECT_EQ(Prefixes(Dir + "/named"), 1u) << "c.cu's <cuda_runtime.h>, <cmath>";
  EXPECT_EQ(Named.Out, Plain.Out);
}

TEST_F(PrecompiledHeadersTest,
       ADamagedPrecompiledHeaderIsNotTrustedAndIsRebuilt) {
  CommandResult First = runC();
  ASSERT_EQ(First.Status, 0) << First.Err;
  std::vector<std::string> Pch = pchFiles();
  ASSERT_EQ(Pch.size(), 1u);
  {
    std::ofstream Out(Pch[0], std::ios::binary | std::ios::trunc);
    Out << "CPCH but not really";
  }
  // The stored result read the header, which changed: a parse, with the damaged
  // header at first, then without it. The same report, and the header is thrown
  // away...
  CommandResult R = runC();
  EXPECT_EQ(R.Status, 0) << R.Err;
  EXPECT_EQ(stats(R), "0 hit(s), 1 miss(es)");
  EXPECT_EQ(R.Out, First.Out);
  EXPECT_TRUE(pchFiles().empty())
      << "the damaged precompiled header is removed";
  // ... and built again by the next parse (an edit: the last parse's result is
  // stored).
  auto Text = llvm::MemoryBuffer::getFile(C);
  ASSERT_TRUE(static_cast<bool>(Text));
  write("c.cu", (*Text)->getBuffer().str() + "// edited\n");
  CommandResult Again = runC();
  EXPECT_EQ(stats(Again), "0 hit(s), 1 miss(es)");
  EXPECT_EQ(json(Again)["kernels"][0]["static_smem_bytes"], 64 * 65 * 4);
  std::vector<std::string> Now = pchFiles();
  ASSERT_EQ(Now.size(), 1u);
  uint64_t Size = 0;
  llvm::sys::fs::file_size(Now[0], Size);
  EXPECT_GT(Size, 100000u) << "a real precompiled header again";
}

TEST(FactsJson, RoundTripKeepsTheAnalysis) {
  // A fixture's facts stored and read back analyse to the same report.
  std::string File = fixturesDir() + "/layout/helper_shared_by_two_kernels.cu";
  ASSERT_TRUE(llvm::sys::fs::exists(File)) << File;
  frontend::CompileCommand C;
  C.Directory = sourceDir();
  C.File = File;
  C.Arguments = {"clang++", "-x", "cuda", File};
  std::vector<frontend::UnitJob> Jobs = frontend::planJobs({C}, {"sm_90"});
  ASSERT_EQ(Jobs.size(), 1u);
  TranslationUnitFacts Facts = frontend::parseUnit(Jobs[0], environment());
  ASSERT_FALSE(Facts.Failed);
  std::optional<TranslationUnitFacts> Back = factsFromJson(factsToJson(Facts));
  ASSERT_TRUE(Back.has_value());
  EXPECT_EQ(factsToJson(*Back), factsToJson(Facts));
  Report R1, R2;
  analyzeUnit(Facts, builtinDatabase(), AnalysisOptions(), R1);
  analyzeUnit(*Back, builtinDatabase(), AnalysisOptions(), R2);
  ASSERT_EQ(R1.Kernels.size(), R2.Kernels.size());
  ASSERT_FALSE(R1.Kernels.empty());
  for (size_t I = 0; I < R1.Kernels.size(); ++I) {
    EXPECT_EQ(R1.Kernels[I].StaticBytes, R2.Kernels[I].StaticBytes);
    ASSERT_EQ(R1.Kernels[I].Allocations.size(),
              R2.Kernels[I].Allocations.size());
    for (size_t J = 0; J < R1.Kernels[I].Allocations.size(); ++J)
      EXPECT_EQ(R1.Kernels[I].Allocations[J].Offset,
                R2.Kernels[I].Allocations[J].Offset);
  }
}

} // namespace
} // namespace test
} // namespace tilefit
