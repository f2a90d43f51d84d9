//===- CompatTest.cpp - What tilefit's CUDA compatibility layer is for ----===//
//
// Each piece of the layer (resources/include/tilefit/cuda_compat.h,
// frontend/lib/ SourceFixups.cpp) on the smallest unit that needs it: without
// the layer Clang rejects the unit and its kernel has no figure; with it the
// unit parses and the kernel has one. A piece that Clang no longer needs (a
// newer Clang declaring the same) fails here, and is to be removed. The figures
// themselves are checked against ptxas by the fixtures under
// tests/fixtures/nvcc_compat.
//
//===----------------------------------------------------------------------===//
#include "../support/TestSupport.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

namespace tilefit {
namespace test {
namespace {

struct Case {
  const char *Name;
  const char *Source;
  const char *ErrorWithout; ///< A substring of Clang's error without the layer.
  std::vector<std::string> Flags = {};
  std::string Arch = "sm_90";
};

const Case Cases[] = {
    {"CacheHintedLoadsAndStores",
     "__global__ void k(float4 *o, const float4 *i, float *f) {\n"
     "  __shared__ float4 s[32];\n"
     "  s[threadIdx.x % 32] = __ldcs(i + threadIdx.x);\n"
     "  __syncthreads();\n"
     "  __stcs(o + threadIdx.x, s[(threadIdx.x + 1) % 32]);\n"
     "  __stwt(f, __ldlu(f + 1) + __ldcg(f + 2) + __ldca(f + 3) + __ldcv(f + "
     "4));\n"
     "}\n",
     "__ldcs"},
    {"HostMinMax",
     "int width(float s, int c, unsigned u) { return max(s * c, 32.0f) + "
     "min(c, 8) + umax(u, 2u); }\n"
     "__global__ void k(float *o) { __shared__ float s[8]; s[threadIdx.x % 8] "
     "= 1; o[0] = s[3]; }\n",
     "no matching function for call to 'max'"},
    {"HostIsfinite",
     "template <class D> int bad(const D *r) { return !isfinite(r[0]) + "
     "isnan(r[1]); }\n"
     "int check(const double *d) { return bad(d); }\n"
     "__global__ void k(float *o) { __shared__ float s[8]; s[threadIdx.x % 8] "
     "= 1; o[0] = s[3]; }\n",
     "no matching function for call to 'isfinite'"},
    {"ClockWithoutTimeH",
     "double since(long t) { return double(clock() - t) / CLOCKS_PER_SEC; }\n"
     "__global__ void k(float *o) { __shared__ float s[8]; s[threadIdx.x % 8] "
     "= 1; o[0] = s[3]; }\n",
     "CLOCKS_PER_SEC"},
    {"SurfaceObjects",
     "__global__ void k(cudaSurfaceObject_t surf, float *o) {\n"
     "  __shared__ float s[8];\n"
     "  s[threadIdx.x % 8] = o[threadIdx.x];\n"
     "  __syncthreads();\n"
     "  surf2Dwrite(s[(threadIdx.x + 1) % 8], surf, 4 * threadIdx.x, 0);\n"
     "}\n",
     "surf2Dwrite"},
    {"AtomicBuiltins",
     "__global__ void k(unsigned *p) {\n"
     "  __shared__ unsigned s[8];\n"
     "  s[threadIdx.x % 8] = __nv_atomic_load_n(p, __NV_ATOMIC_RELAXED);\n"
     "  __syncthreads();\n"
     "  __nv_atomic_fetch_add(p + 1, s[1], __NV_ATOMIC_RELAXED, "
     "__NV_THREAD_SCOPE_DEVICE);\n"
     "}\n",
     "__NV_ATOMIC_RELAXED"},
    {"PackedFloat2OnSm100",
     "__global__ void k(float2 *o) {\n"
     "  __shared__ float2 s[8];\n"
     "  s[threadIdx.x % 8] = o[threadIdx.x];\n"
     "  __syncthreads();\n"
     "  o[threadIdx.x] = __fadd2_rn(s[(threadIdx.x + 1) % 8], s[0]);\n"
     "}\n",
     "__fadd2_rn",
     {},
     "sm_100"},
    {"SharedObjectWithAConstructor",
     "#include <cuda/barrier>\n"
     "template <int N> __global__ void k(float *o) {\n"
     "  __shared__ cuda::barrier<cuda::thread_scope_block> bar;\n"
     "  __shared__ float s[N];\n"
     "  if (threadIdx.x == 0) init(&bar, blockDim.x);\n"
     "  __syncthreads();\n"
     "  s[threadIdx.x % N] = o[0];\n"
     "  bar.arrive_and_wait();\n"
     "  o[threadIdx.x] = s[(threadIdx.x + 1) % N];\n"
     "}\n"
     "template __global__ void k<64>(float *);\n",
     "initialization is not supported for __shared__ variables",
     {"-std=c++17"}},
    {"AlignasAfterShared",
     "__global__ void k(const float *i, float *o) {\n"
     "  __shared__ char c[3];\n"
     "  __shared__ alignas(16) float t[8];\n"
     "  if (threadIdx.x < 3) c[threadIdx.x] = i[threadIdx.x];\n"
     "  t[threadIdx.x % 8] = i[threadIdx.x];\n"
     "  __syncthreads();\n"
     "  o[threadIdx.x] = t[(threadIdx.x + 1) % 8] + c[threadIdx.x % 3];\n"
     "}\n",
     "an attribute list cannot appear here"},
    {"DeviceSideLaunch",
     "__global__ void child(int *p) { __shared__ int s[4]; s[threadIdx.x % 4] "
     "= 1; p[0] = s[1]; }\n"
     "__global__ void parent(int *p) {\n"
     "  __shared__ int t[16];\n"
     "  t[threadIdx.x % 16] = p[threadIdx.x];\n"
     "  __syncthreads();\n"
     "  child<<<1, 4>>>(p + t[3]);\n"
     "}\n",
     "reference to __global__ function 'child' in __global__ function",
     {"-fgpu-rdc"}},
    {"AsmSpecialRegister",
     "__global__ void k(unsigned long long *o) {\n"
     "  __shared__ unsigned long long s[4];\n"
     "  unsigned long long t;\n"
     "  asm volatile(\"mov.u64 %0, %globaltimer;\" : \"=l\"(t));\n"
     "  s[threadIdx.x % 4] = t;\n"
     "  __syncthreads();\n"
     "  o[threadIdx.x] = s[(threadIdx.x + 1) % 4];\n"
     "}\n",
     "invalid % escape in inline assembly string"},
};

class CompatTest : public ::testing::TestWithParam<Case> {};

TEST_P(CompatTest, NeededAndEnough) {
  if (!environment().Toolkit.found())
    GTEST_SKIP() << "no CUDA toolkit: the compatibility layer applies to the "
                    "toolkit's headers";
  const Case &C = GetParam();
  llvm::SmallString<128> Dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("tilefit-compat", Dir));
  std::string File = std::string(Dir) + "/" + C.Name + ".cu";
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(File, EC);
    ASSERT_FALSE(EC);
    OS << C.Source;
  }
  frontend::ParseEnvironment Without = environmentWithoutPch();
  Without.NvccCompatibility = false;
  auto Bare = parseFile(File, C.Flags, {C.Arch}, Without);
  ASSERT_EQ(Bare.size(), 1u);
  EXPECT_TRUE(Bare[0].Partial)
      << "Clang accepts the unit without the compatibility layer: "
         "this piece is no longer needed";
  std::string Errors;
  for (const Diagnostic &D : Bare[0].Diagnostics)
    Errors += D.Message + "\n";
  EXPECT_NE(Errors.find(C.ErrorWithout), std::string::npos) << Errors;

  auto With = parseFile(File, C.Flags, {C.Arch}, environment());
  ASSERT_EQ(With.size(), 1u);
  EXPECT_FALSE(With[0].Partial || With[0].Failed);
  for (const Diagnostic &D : With[0].Diagnostics)
    ADD_FAILURE() << D.Loc.Line << ": " << D.Message;
  EXPECT_FALSE(With[0].Kernels.empty());
  for (const KernelFacts &K : With[0].Kernels)
    EXPECT_FALSE(K.Error.has_value()) << K.Name;
  llvm::sys::fs::remove_directories(Dir);
}

INSTANTIATE_TEST_SUITE_P(Pieces, CompatTest, ::testing::ValuesIn(Cases),
                         [](const ::testing::TestParamInfo<Case> &I) {
                           return I.param.Name;
                         });

} // namespace
} // namespace test
} // namespace tilefit
