//===- OccupancyOracleTest.cpp - tilefit's occupancy against NVIDIA's -----===//
//
// NVIDIA's header-only occupancy calculator (cuda_occupancy.h, from the
// toolkit; compiled here into this host-only test, never copied into the
// repository) is the oracle: for every architecture of the capacity database
// and a grid of block sizes, registers, static and dynamic shared memory,
// opt-ins and carveouts, tilefit's model must give the same resident blocks per
// SM and the same shared-memory limit.
//
//===----------------------------------------------------------------------===//
#include "tilefit/model/Arch.h"
#include "tilefit/model/Capacity.h"
#include "tilefit/model/Occupancy.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>

#include <algorithm>

#ifdef TILEFIT_HAVE_CUDA_OCCUPANCY
#include <cuda_occupancy.h>
#endif

namespace tilefit {
namespace {

#ifdef TILEFIT_HAVE_CUDA_OCCUPANCY

CapacityDatabase database() {
  auto DB = CapacityDatabase::load(std::string(TILEFIT_SOURCE_DIR) +
                                   "/data/capacity.json");
  EXPECT_TRUE(static_cast<bool>(DB)) << DB.error();
  return *DB;
}

/// What the CUDA runtime would report for a device of this architecture.
cudaOccDeviceProp deviceOf(const ArchCapacity &C) {
  cudaOccDeviceProp P;
  auto A = parseArch(C.Name);
  P.computeMajor = static_cast<int>(A->Number / 10);
  P.computeMinor = static_cast<int>(A->Number % 10);
  P.maxThreadsPerBlock = static_cast<int>(*C.ThreadsPerBlock);
  P.maxThreadsPerMultiprocessor = static_cast<int>(*C.ThreadsPerSm);
  P.regsPerBlock = static_cast<int>(*C.RegistersPerBlock);
  P.regsPerMultiprocessor = static_cast<int>(*C.RegistersPerSm);
  P.warpSize = static_cast<int>(*C.WarpSize);
  P.sharedMemPerBlock = *C.BlockDefaultMax;
  P.sharedMemPerMultiprocessor = *C.SharedPerSm;
  P.numSms = 100;
  P.sharedMemPerBlockOptin = *C.BlockOptinMax;
  P.reservedSharedMemPerBlock = *C.ReservedPerBlock;
  return P;
}

struct Case {
  uint64_t Threads, Registers, Static, Dynamic;
  std::optional<uint64_t> OptIn;
  std::optional<int> Carveout;
};

TEST(OccupancyOracleTest, EqualsCudaOccupancyHeader) {
  CapacityDatabase DB = database();
  const std::vector<std::string> Archs = {
      "sm_75",  "sm_80",  "sm_86",  "sm_87",  "sm_89", "sm_90",
      "sm_100", "sm_103", "sm_110", "sm_120", "sm_121"};
  size_t Compared = 0;
  for (const std::string &Name : Archs) {
    const ArchCapacity *C = DB.lookup(Name);
    ASSERT_NE(C, nullptr) << Name;
    cudaOccDeviceProp Prop = deviceOf(*C);
    for (uint64_t Threads :
         {32, 64, 96, 128, 192, 256, 320, 512, 640, 768, 1024, 1056})
      for (uint64_t Registers : {0, 16, 32, 40, 64, 80, 96, 128, 168, 255})
        for (uint64_t Static : {0, 100, 4096, 12288, 40000, 49152})
          for (uint64_t Dynamic :
               {uint64_t(0), uint64_t(1000), uint64_t(16384), uint64_t(49152),
                uint64_t(65536), uint64_t(100000), uint64_t(160000),
                uint64_t(230000),
                // The edges: the default limit, and the opt-in maximum, exactly
                // and one above.
                49152 - std::min<uint64_t>(Static, 49152),
                49153 - std::min<uint64_t>(Static, 49152),
                *C->BlockOptinMax - Static, *C->BlockOptinMax - Static + 1})
            for (std::optional<uint64_t> OptIn :
                 {std::optional<uint64_t>(), std::optional<uint64_t>(100000),
                  std::optional<uint64_t>(*C->BlockOptinMax - Static)})
              for (std::optional<int> Carveout :
                   {std::optional<int>(), std::optional<int>(0),
                    std::optional<int>(25), std::optional<int>(50),
                    std::optional<int>(100)}) {
                cudaOccFuncAttributes Attr;
                Attr.maxThreadsPerBlock = 1024;
                Attr.numRegs = static_cast<int>(Registers);
                Attr.sharedSizeBytes = Static;
                Attr.partitionedGCConfig = PARTITIONED_GC_OFF;
                Attr.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
                Attr.maxDynamicSharedSizeBytes =
                    OptIn ? *OptIn : (Static < 49152 ? 49152 - Static : 0);
                Attr.numBlockBarriers = 1;
                cudaOccDeviceState State;
                State.carveoutConfig =
                    Carveout ? *Carveout : SHAREDMEM_CARVEOUT_DEFAULT;
                cudaOccResult Want;
                cudaOccError Status = cudaOccMaxActiveBlocksPerMultiprocessor(
                    &Want, &Prop, &Attr, &State, static_cast<int>(Threads),
                    Dynamic);

                OccupancyInput In{Threads, Registers, Static,
                                  Dynamic, OptIn,     Carveout};
                auto Got = computeOccupancy(*C, In);
                std::string What =
                    Name + " threads=" + std::to_string(Threads) +
                    " regs=" + std::to_string(Registers) +
                    " static=" + std::to_string(Static) +
                    " dynamic=" + std::to_string(Dynamic) +
                    " optin=" + (OptIn ? std::to_string(*OptIn) : "-") +
                    " carveout=" + (Carveout ? std::to_string(*Carveout) : "-");
                ASSERT_EQ(Status == CUDA_OCC_SUCCESS, static_cast<bool>(Got))
                    << What << (Got ? "" : ": " + Got.error());
                if (!Got)
                  continue;
                ASSERT_EQ(
                    Got->BlocksPerSm,
                    static_cast<uint64_t>(Want.activeBlocksPerMultiprocessor))
                    << What;
                uint64_t WantSmem =
                    Want.blockLimitSharedMem == INT_MAX
                        ? UINT64_MAX
                        : static_cast<uint64_t>(Want.blockLimitSharedMem);
                ASSERT_EQ(Got->BlocksBySharedMemory, WantSmem) << What;
                ASSERT_EQ(Got->SmemPerBlock, Want.allocatedSharedMemPerBlock)
                    << What;
                ASSERT_EQ(Got->LimitedBy, Want.limitingFactors & 0xF) << What;
                ++Compared;
              }
  }
  EXPECT_GT(Compared, 100000u);
}

/// The per-architecture constants only the header encodes agree with the
/// database.
TEST(OccupancyOracleTest, DatabaseAgreesWithTheHeadersConstants) {
  CapacityDatabase DB = database();
  for (const std::string &Name : nvccRealArchs()) {
    const ArchCapacity *C = DB.lookup(Name);
    if (!C->BlocksPerSm)
      continue; // sm_88: undocumented, unknown on purpose
    cudaOccDeviceProp Prop = deviceOf(*C);
    int Blocks = 0, Granularity = 0, RegUnit = 0, SubPartitions = 0;
    ASSERT_EQ(cudaOccMaxBlocksPerMultiprocessor(&Blocks, &Prop),
              CUDA_OCC_SUCCESS)
        << Name;
    ASSERT_EQ(cudaOccSMemAllocationGranularity(&Granularity, &Prop),
              CUDA_OCC_SUCCESS)
        << Name;
    ASSERT_EQ(cudaOccRegAllocationGranularity(&RegUnit, &Prop),
              CUDA_OCC_SUCCESS)
        << Name;
    ASSERT_EQ(cudaOccSubPartitionsPerMultiprocessor(&SubPartitions, &Prop),
              CUDA_OCC_SUCCESS);
    EXPECT_EQ(*C->BlocksPerSm, static_cast<uint64_t>(Blocks)) << Name;
    EXPECT_EQ(*C->AllocGranularity, static_cast<uint64_t>(Granularity)) << Name;
    EXPECT_EQ(*C->RegisterAllocUnit, static_cast<uint64_t>(RegUnit)) << Name;
    EXPECT_EQ(*C->RegisterSubPartitions, static_cast<uint64_t>(SubPartitions))
        << Name;
    // Every carveout step is one the header rounds to.
    for (uint64_t Step : C->CarveoutSteps) {
      size_t Size = Step;
      ASSERT_EQ(cudaOccAlignUpShmemSizeVoltaPlus(&Size, &Prop),
                CUDA_OCC_SUCCESS)
          << Name;
      EXPECT_EQ(Size, Step) << Name;
    }
  }
}

/// The standard output of \p Command.
std::string outputOf(const std::string &Command) {
  std::string Out;
  if (FILE *P = popen(Command.c_str(), "r")) {
    char Buf[4096];
    size_t N;
    while ((N = fread(Buf, 1, sizeof(Buf), P)) > 0)
      Out.append(Buf, N);
    pclose(P);
  }
  return Out;
}

// `tilefit calc --occupancy`, the command a user runs, against the header: a
// block of T threads, R registers and S bytes of shared memory (opted in where
// above the default limit), on every architecture at once.
TEST(OccupancyOracleTest, CalcOccupancyEqualsCudaOccupancyHeader) {
  CapacityDatabase DB = database();
  const std::string Archs = "sm_75,sm_80,sm_86,sm_89,sm_90,sm_100,sm_120";
  for (uint64_t Threads : {64, 128, 256, 384, 1024})
    for (uint64_t Registers : {0, 32, 64, 128})
      for (uint64_t Shared : {0, 4096, 49152, 65536, 99000}) {
        const std::string Command =
            std::string(TILEFIT_BINARY) + " calc --occupancy --format=json" +
            " --threads " + std::to_string(Threads) +
            (Registers ? " --registers " + std::to_string(Registers) : "") +
            " --smem " + std::to_string(Shared) + " --arch " + Archs;
        auto J = nlohmann::json::parse(outputOf(Command), nullptr, false);
        ASSERT_FALSE(J.is_discarded()) << Command;
        ASSERT_EQ(J["architectures"].size(), 7u) << Command;
        for (const auto &A : J["architectures"]) {
          const ArchCapacity *C = DB.lookup(A["arch"].get<std::string>());
          ASSERT_NE(C, nullptr);
          cudaOccDeviceProp Prop = deviceOf(*C);
          cudaOccFuncAttributes Attr;
          Attr.maxThreadsPerBlock = 1024;
          Attr.numRegs = static_cast<int>(Registers);
          Attr.sharedSizeBytes = 0;
          Attr.partitionedGCConfig = PARTITIONED_GC_OFF;
          Attr.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
          Attr.maxDynamicSharedSizeBytes =
              Shared > *C->BlockDefaultMax ? Shared : *C->BlockDefaultMax;
          Attr.numBlockBarriers = 1;
          cudaOccDeviceState State;
          cudaOccResult Want;
          ASSERT_EQ(cudaOccMaxActiveBlocksPerMultiprocessor(
                        &Want, &Prop, &Attr, &State, static_cast<int>(Threads),
                        Shared),
                    CUDA_OCC_SUCCESS)
              << Command << " " << A.dump();
          EXPECT_EQ(A["blocks_per_sm"].get<uint64_t>(),
                    static_cast<uint64_t>(Want.activeBlocksPerMultiprocessor))
              << Command << " " << A.dump();
          EXPECT_EQ(A["smem_per_block"].get<uint64_t>(),
                    static_cast<uint64_t>(Want.allocatedSharedMemPerBlock))
              << Command << " " << A.dump();
        }
      }
}

#else

TEST(OccupancyOracleTest, EqualsCudaOccupancyHeader) {
  GTEST_SKIP()
      << "cuda_occupancy.h was not found when building the tests: no oracle";
}

#endif

} // namespace
} // namespace tilefit
