//===- PreambleTest.cpp - The language server's per-file preambles --------===//
//
// A file analysed again and again (the language server at every edit) reuses
// the precompiled preamble of its #include block while that block, the files it
// read and the options are unchanged, and builds it anew as soon as one of them
// changes; what the parse finds is what a parse without a preamble finds.
//
//===----------------------------------------------------------------------===//
#include "../support/TestSupport.h"

#include "tilefit/frontend/PreambleStore.h"
#include "tilefit/model/Analysis.h"

#include "llvm/Support/FileSystem.h"

#include <thread>

namespace tilefit {
namespace frontend {
namespace {

const char *const Header = R"(#pragma once
template <int N> __device__ float staged(const float *p) {
  __shared__ float h[N];
  h[threadIdx.x % N] = p[threadIdx.x];
  __syncthreads();
  return h[0];
}
__global__ void in_header(float *o) {
  __shared__ float TILE[16];
  TILE[threadIdx.x % 16] = o[0];
  __syncthreads();
  o[threadIdx.x] = TILE[0];
}
)";

std::string mainText(const std::string &Body,
                     const std::string &Includes = "") {
  return "#include \"h.cuh\"\n" + Includes + "\n" + Body;
}

const char *const Kernel = R"(
__global__ void in_main(float *o) {
  __shared__ float mine[3];
  mine[threadIdx.x % 3] = o[0];
  o[threadIdx.x] = mine[0] + staged<8>(o);
}
)";

class PreambleTest : public test::TempDirTest {
protected:
  void SetUp() override {
    TempDirTest::SetUp();
    HeaderPath = write("h.cuh", Header);
    MainPath = write("main.cu", mainText(Kernel));
    Env = test::environmentWithoutPch();
    Env.Preambles = &Store;
  }

  /// Each kernel's static bytes, as the report of a parse with \p E gives them.
  std::map<std::string, std::string>
  footprints(const ParseEnvironment &E,
             const std::vector<std::string> &Archs = {"sm_90"},
             std::vector<TranslationUnitFacts> *Out = nullptr) {
    std::vector<TranslationUnitFacts> Facts =
        test::parseFile(MainPath, {}, Archs, E);
    Report R;
    for (const TranslationUnitFacts &TU : Facts) {
      analyzeUnit(TU, test::builtinDatabase(), AnalysisOptions(), R);
      for (const Diagnostic &D : TU.Diagnostics)
        if (D.Level == Severity::Error)
          Errors.push_back(D.Loc.File + ":" + std::to_string(D.Loc.Line) +
                           ": " + D.Message);
    }
    finalizeReport(R);
    std::map<std::string, std::string> Bytes;
    for (const KernelReport &K : R.Kernels)
      Bytes[K.Arch + " " + K.Name] =
          K.StaticBytes ? std::to_string(*K.StaticBytes) : "unknown";
    if (Out)
      *Out = std::move(Facts);
    return Bytes;
  }

  /// Footprints with and without the store must agree.
  std::map<std::string, std::string>
  checked(const std::vector<std::string> &Archs = {"sm_90"}) {
    ParseEnvironment Plain = Env;
    Plain.Preambles = nullptr;
    Errors.clear();
    auto Without = footprints(Plain, Archs);
    std::vector<std::string> ErrorsWithout = std::move(Errors);
    Errors.clear();
    auto With = footprints(Env, Archs);
    EXPECT_EQ(With, Without);
    EXPECT_EQ(Errors, ErrorsWithout);
    return With;
  }

  PreambleStore Store;
  ParseEnvironment Env;
  std::string HeaderPath, MainPath;
  std::vector<std::string> Errors;
};

TEST_F(PreambleTest, ReusedWhileOnlyTheBodyChanges) {
  auto First = checked();
  EXPECT_EQ(First["sm_90 in_main"], "44"); // mine[3], then staged<8>'s h[8]
  EXPECT_EQ(First["sm_90 in_header"], "64");
  EXPECT_EQ(Store.builds(), 1u);
  EXPECT_EQ(Store.loads(), 1u);
  // The editor's buffer gains a kernel after the #include block.
  Env.Unsaved[MainPath] = mainText(std::string(Kernel) + R"(
__global__ void added(float *o) {
  __shared__ double more[5];
  more[threadIdx.x % 5] = o[0];
  o[threadIdx.x] = more[0] + staged<8>(o);
})");
  auto Second = checked();
  EXPECT_EQ(Second["sm_90 added"], "72");
  EXPECT_EQ(Second.size(), 3u);
  EXPECT_EQ(Store.builds(), 1u)
      << "an edit after the #include block built the preamble again";
  EXPECT_EQ(Store.reuses(), 1u);
  EXPECT_EQ(Store.loads(), 2u);
}

TEST_F(PreambleTest, RebuiltWhenTheIncludeBlockChanges) {
  checked();
  write("g.cuh", "#pragma once\n__shared__ int from_g[7];\n");
  Env.Unsaved[MainPath] =
      mainText(std::string(Kernel) +
                   "__global__ void uses_g(int *o) { from_g[threadIdx.x % 7] "
                   "= o[0]; __syncthreads(); o[threadIdx.x] = from_g[1]; }\n",
               "#include \"g.cuh\"\n");
  auto After = checked();
  EXPECT_EQ(After["sm_90 uses_g"], "28");
  EXPECT_EQ(Store.builds(), 2u);
  EXPECT_EQ(Store.loads(), 2u);
}

TEST_F(PreambleTest, RebuiltWhenAHeaderChangesOnDisk) {
  checked();
  std::string Bigger = Header;
  Bigger.replace(Bigger.find("TILE[16]"), 8, "TILE[160]");
  rewrite(HeaderPath, Bigger);
  auto After = checked();
  EXPECT_EQ(After["sm_90 in_header"], "640");
  EXPECT_EQ(Store.builds(), 2u);
}

TEST_F(PreambleTest, RebuiltWhenAnUnsavedHeaderChangesToTheSameSize) {
  // The editor's buffers have no modification time: Clang's check of the
  // preamble's files by size and time cannot see this edit.
  Env.Unsaved[HeaderPath] = Header;
  checked();
  std::string Same = Header;
  Same.replace(Same.find("TILE[16]"), 8, "TILE[32]");
  Env.Unsaved[HeaderPath] = Same;
  auto After = checked();
  EXPECT_EQ(After["sm_90 in_header"], "128");
  EXPECT_EQ(Store.builds(), 2u);
}

TEST_F(PreambleTest, OtherOpenFilesDoNotMatter) {
  // Another file open in the editor, edited between two analyses of this one:
  // the preamble did not read it and stays.
  Env.Unsaved[Dir + "/other.cu"] = "__global__ void other() {}\n";
  checked();
  Env.Unsaved[Dir + "/other.cu"] = "__global__ void other(int) {}\n";
  checked();
  EXPECT_EQ(Store.builds(), 1u);
  EXPECT_EQ(Store.reuses(), 1u);
}

TEST_F(PreambleTest, NotLoadedWhenBuildingItReportedAnError) {
  // The parse that loaded it would not report the header's error again.
  rewrite(HeaderPath, std::string(Header) +
                          "__device__ int broken() { return undeclared; }\n");
  std::vector<TranslationUnitFacts> Facts;
  footprints(Env, {"sm_90"}, &Facts);
  ASSERT_EQ(Facts.size(), 1u);
  EXPECT_TRUE(Facts[0].Partial) << "analysed as Clang built it";
  ASSERT_FALSE(Errors.empty());
  EXPECT_NE(
      Errors[0].find("h.cuh:14: use of undeclared identifier 'undeclared'"),
      std::string::npos)
      << Errors[0];
  EXPECT_EQ(Store.loads(), 0u);
  checked();
  EXPECT_EQ(Store.builds(), 1u)
      << "nothing changed: the failed preamble need not be rebuilt";
  EXPECT_EQ(Store.loads(), 0u);
}

TEST_F(PreambleTest, AnErrorInTheFileItselfIsReportedOnce) {
  checked();
  Env.Unsaved[MainPath] = mainText(
      std::string(Kernel) + "__global__ void typing(float *o) { o[0] = x; }\n");
  std::vector<TranslationUnitFacts> Facts;
  footprints(Env, {"sm_90"}, &Facts);
  ASSERT_EQ(Facts.size(), 1u);
  EXPECT_TRUE(Facts[0].Partial) << "analysed as Clang built it";
  ASSERT_EQ(Errors.size(), 1u);
  EXPECT_NE(Errors[0].find("main.cu:9: use of undeclared identifier 'x'"),
            std::string::npos)
      << Errors[0];
  EXPECT_EQ(Store.loads(), 2u);
  EXPECT_EQ(Store.builds(), 1u);
}

TEST_F(PreambleTest, OnePerArchitectureAndSide) {
  // A file that mentions __CUDA_ARCH__ is parsed on the host side too (its
  // launches).
  Env.Unsaved[MainPath] = mainText(std::string(Kernel) + R"(
#ifndef __CUDA_ARCH__
void launch(float *o) { in_main<<<1, 32>>>(o); }
#endif
)");
  auto First = checked({"sm_80", "sm_90"});
  EXPECT_EQ(First["sm_80 in_main"], "44");
  const unsigned Built = Store.builds();
  EXPECT_EQ(Built, 3u)
      << "the device side for each architecture, the host side once";
  checked({"sm_80", "sm_90"});
  EXPECT_EQ(Store.builds(), Built);
  EXPECT_EQ(Store.reuses(), Built);
}

} // namespace
} // namespace frontend
} // namespace tilefit
