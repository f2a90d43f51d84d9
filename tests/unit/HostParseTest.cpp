//===- HostParseTest.cpp - When the host-side parse runs ------------------===//
//
// The device-side parse sees every launch of a unit but those in blocks it
// skips under a directive on __CUDA_ARCH__ (`#ifndef __CUDA_ARCH__`, the #else
// of `#ifdef __CUDA_ARCH__`), found by the preprocessor's skipped ranges; only
// then does a host-side parse run, and the launch it reads is the kernel's.
//
//===----------------------------------------------------------------------===//
#include "../support/TestSupport.h"

#include <gtest/gtest.h>

namespace tilefit {
namespace test {
namespace {

class HostParseTest : public TempDirTest {
protected:
  const char *Kernel = "__global__ void k(float *o) {\n"
                       "  extern __shared__ float d[];\n"
                       "  d[threadIdx.x] = o[0];\n"
                       "  __syncthreads();\n"
                       "  o[1] = d[threadIdx.x + 1];\n"
                       "}\n";
  /// Whether the device-side parse of \p Source skipped host calls, and the
  /// launches of k.
  std::pair<bool, size_t> parse(const std::string &Source,
                                std::vector<std::string> Flags = {}) {
    std::string F = write("k.cu", Source);
    Flags.push_back("-I" + Dir);
    auto Facts = parseFile(F, Flags, {"sm_90"}, environmentWithoutPch());
    EXPECT_EQ(Facts.size(), 1u);
    if (Facts.empty() || Facts[0].Kernels.empty())
      return {false, 0};
    EXPECT_FALSE(Facts[0].Failed);
    return {Facts[0].SkippedHostCalls, Facts[0].Kernels[0].Launches.size()};
  }
};

TEST_F(HostParseTest, OnlyWhereTheDeviceParseSkippedLaunches) {
  // Under #ifndef __CUDA_ARCH__: the host-side parse reads the launch.
  auto R = parse(std::string(Kernel) +
                 "#ifndef __CUDA_ARCH__\n"
                 "void host(float *o) { k<<<1, 32, 256>>>(o); }\n"
                 "#endif\n");
  EXPECT_TRUE(R.first);
  EXPECT_EQ(R.second, 1u);
  // The #else of #ifdef __CUDA_ARCH__, and #if !defined(__CUDA_ARCH__) in a
  // header.
  R = parse(std::string(Kernel) +
            "#ifdef __CUDA_ARCH__\n#else\n"
            "void host(float *o) { cudaLaunchKernel((const void *)k, 1, "
            "32, nullptr, 256, 0); }\n#endif\n");
  EXPECT_TRUE(R.first);
  EXPECT_EQ(R.second, 1u);
  write("launch.h", "#if !defined(__CUDA_ARCH__)\n"
                    "inline void host(float *o) { k<<<1, 32, 256>>>(o); }\n"
                    "#endif\n");
  R = parse(std::string(Kernel) + "#include \"launch.h\"\n");
  EXPECT_TRUE(R.first);
  EXPECT_EQ(R.second, 1u);
  // __CUDA_ARCH__ in device code only, the launch in plain host code: the
  // device-side parse saw it, no second parse.
  R = parse(std::string(Kernel) +
            "__device__ int f() {\n#if __CUDA_ARCH__ >= 800\n  return 1;\n"
            "#else\n  return 0;\n#endif\n}\n"
            "void host(float *o) { k<<<1, 32, 256>>>(o); }\n");
  EXPECT_FALSE(R.first);
  EXPECT_EQ(R.second, 1u);
  // A block skipped on another macro is skipped on the host side too.
  R = parse(std::string(Kernel) +
            "#ifdef OTHER\nvoid host2(float *o) { k<<<1, 32>>>(o); }\n"
            "#endif\nvoid host(float *o) { k<<<1, 32, 256>>>(o); }\n");
  EXPECT_FALSE(R.first);
  EXPECT_EQ(R.second, 1u);
}

} // namespace
} // namespace test
} // namespace tilefit
