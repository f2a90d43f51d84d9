//===- ToolkitTest.cpp - Finding the CUDA toolkit as clang does -----------===//
#include "tilefit/frontend/Toolkit.h"
#include "../support/TestSupport.h"

#include <cstdlib>

namespace tilefit {
namespace frontend {
namespace {

/// A fake toolkit: include/cuda_runtime.h and include/cuda.h with a version.
class ToolkitTest : public test::TempDirTest {
protected:
  std::string fake(const std::string &Name, int Version, bool Cccl) {
    write(Name + "/include/cuda_runtime.h", "");
    write(Name + "/include/cuda.h",
          "#define CUDA_VERSION " + std::to_string(Version) + "\n");
    if (Cccl)
      write(Name + "/include/cccl/cub/cub.cuh", "");
    return Dir + "/" + Name;
  }
  void SetUp() override {
    TempDirTest::SetUp();
    for (const char *V : {"CUDA_PATH", "CUDA_HOME"}) {
      const char *Old = std::getenv(V);
      Saved.emplace_back(V,
                         Old ? std::optional<std::string>(Old) : std::nullopt);
      ::unsetenv(V);
    }
  }
  void TearDown() override {
    for (const auto &[Name, Value] : Saved)
      Value ? ::setenv(Name.c_str(), Value->c_str(), 1)
            : ::unsetenv(Name.c_str());
    TempDirTest::TearDown();
  }
  std::vector<std::pair<std::string, std::optional<std::string>>> Saved;
};

TEST_F(ToolkitTest, ExplicitPathWins) {
  std::string A = fake("a", 12040, false), B = fake("b", 13000, true);
  ::setenv("CUDA_PATH", B.c_str(), 1);
  std::string Error;
  CudaToolkit T = findCudaToolkit(A, Error);
  EXPECT_TRUE(Error.empty());
  EXPECT_EQ(T.FoundBy, "--cuda-path");
  EXPECT_EQ(T.Version, "12.4");
  EXPECT_FALSE(T.HasCccl);
}

TEST_F(ToolkitTest, EnvironmentBeforePathAndDefault) {
  std::string A = fake("a", 12040, false), B = fake("b", 13000, true);
  ::setenv("CUDA_HOME", A.c_str(), 1);
  ::setenv("CUDA_PATH", B.c_str(), 1);
  std::string Error;
  CudaToolkit T = findCudaToolkit("", Error);
  EXPECT_EQ(T.FoundBy, "CUDA_PATH");
  EXPECT_EQ(T.Version, "13.0");
  EXPECT_TRUE(T.HasCccl) << "CUDA 13 keeps CCCL under include/cccl";
  ::unsetenv("CUDA_PATH");
  T = findCudaToolkit("", Error);
  EXPECT_EQ(T.FoundBy, "CUDA_HOME");
}

TEST_F(ToolkitTest, AnEnvironmentPathThatIsNoToolkitIsSkipped) {
  ::setenv("CUDA_PATH", (Dir + "/nothing").c_str(), 1);
  std::string Error;
  CudaToolkit T = findCudaToolkit("", Error);
  EXPECT_TRUE(Error.empty());
  EXPECT_NE(T.FoundBy, "CUDA_PATH");
  ASSERT_FALSE(T.Searched.empty());
  EXPECT_NE(T.Searched[0].find("$CUDA_PATH"), std::string::npos);
}

TEST_F(ToolkitTest, ExplicitPathThatIsNoToolkitIsAnError) {
  std::string Error;
  CudaToolkit T = findCudaToolkit(Dir + "/nothing", Error);
  EXPECT_FALSE(T.found());
  EXPECT_NE(Error.find("not a CUDA toolkit"), std::string::npos);
}

} // namespace
} // namespace frontend
} // namespace tilefit

namespace tilefit {
namespace frontend {
namespace {

class NvccVersionTest : public test::TempDirTest {};

TEST_F(NvccVersionTest, FromVersionJsonOrDistInfoElseCudaVersionAlone) {
  // nvcc's full version gives __CUDACC_VER_BUILD__: from version.json (runfile
  // and packages), or from the wheel layout's dist-info folder; without either,
  // CUDA_VERSION's two parts.
  write("a/include/cuda_runtime.h", "");
  write("a/include/cuda.h", "#define CUDA_VERSION 12040\n");
  write("a/version.json", R"({"cuda": {"name": "CUDA SDK", "version": "12.4.1"},
    "cuda_nvcc": {"name": "CUDA NVCC", "version": "12.4.131"}})");
  write("b/include/cuda_runtime.h", "");
  write("b/include/cuda.h", "#define CUDA_VERSION 13000\n");
  write("b/dist-info/nvidia_cuda_crt-13.0.88.dist-info/RECORD", "");
  write("b/dist-info/nvidia_cuda_nvcc-13.0.88.dist-info/RECORD", "");
  write("c/include/cuda_runtime.h", "");
  write("c/include/cuda.h", "#define CUDA_VERSION 13010\n");
  std::string Error;
  EXPECT_EQ(findCudaToolkit(Dir + "/a", Error).NvccVersion, "12.4.131");
  EXPECT_EQ(findCudaToolkit(Dir + "/b", Error).NvccVersion, "13.0.88");
  CudaToolkit C = findCudaToolkit(Dir + "/c", Error);
  EXPECT_EQ(C.NvccVersion, "");
  EXPECT_EQ(C.Version, "13.1");
}

} // namespace
} // namespace frontend
} // namespace tilefit
