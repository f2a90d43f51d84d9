//===- ScopesTest.cpp - Registers, constant memory and Tensor Memory ------===//
//
// The figures of the scope model against what ptxas 13.0 did (see
// model/lib/Scopes.cpp), on synthetic facts; the fixtures under
// tests/fixtures/scopes check the same from source.
//
//===----------------------------------------------------------------------===//
#include "tilefit/model/Scopes.h"

#include <gtest/gtest.h>

namespace tilefit {
namespace {

CapacityDatabase builtin() {
  auto DB = CapacityDatabase::load(std::string(TILEFIT_SOURCE_DIR) +
                                   "/data/capacity.json");
  EXPECT_TRUE(static_cast<bool>(DB)) << (DB ? "" : DB.error());
  return DB ? std::move(*DB) : CapacityDatabase();
}

uint64_t cap(const char *Arch, uint64_t Threads, uint64_t Blocks,
             bool *Ignored = nullptr) {
  CapacityDatabase DB = builtin();
  const ArchCapacity *A = DB.lookup(Arch);
  EXPECT_NE(A, nullptr) << Arch;
  if (!A)
    return 0;
  auto L = launchBoundsRegisterLimit(*A, Threads, Blocks, Ignored);
  EXPECT_TRUE(static_cast<bool>(L)) << (L ? "" : L.error());
  return L ? *L : 0;
}

// "Used N registers" of a kernel that wants more, under each __launch_bounds__.
TEST(ScopesTest, LaunchBoundsRegisterCapsMatchPtxas) {
  for (const char *Arch : {"sm_80", "sm_90", "sm_120"}) {
    EXPECT_EQ(cap(Arch, 256, 2), 128u) << Arch;
    EXPECT_EQ(cap(Arch, 192, 3), 96u) << Arch;
    EXPECT_EQ(cap(Arch, 100, 6), 80u) << Arch;
    EXPECT_EQ(cap(Arch, 288, 3), 72u) << Arch;
    EXPECT_EQ(cap(Arch, 160, 5), 72u) << Arch;
    EXPECT_EQ(cap(Arch, 640, 1), 96u) << Arch;
    EXPECT_EQ(cap(Arch, 1024, 1), 64u) << Arch;
    EXPECT_EQ(cap(Arch, 128, 1), 255u) << Arch;
  }
  EXPECT_EQ(cap("sm_80", 1024, 2), 32u);
  EXPECT_EQ(cap("sm_80", 64, 32), 32u);
}

// A minimum the SM cannot hold: ptxas warns ".minnctapersm will be ignored" and
// caps by the block size alone.
TEST(ScopesTest, MinimumAnSmCannotHoldIsIgnored) {
  bool Ignored = false;
  EXPECT_EQ(cap("sm_80", 682, 3, &Ignored), 80u);
  EXPECT_TRUE(Ignored);
  EXPECT_EQ(cap("sm_120", 1024, 2, &Ignored), 64u);
  EXPECT_TRUE(Ignored);
  EXPECT_EQ(cap("sm_80", 128, 17, &Ignored), 255u);
  EXPECT_TRUE(Ignored);
  EXPECT_EQ(cap("sm_80", 64, 33, &Ignored), 255u);
  EXPECT_TRUE(Ignored);
  EXPECT_EQ(cap("sm_80", 256, 2, &Ignored), 128u);
  EXPECT_FALSE(Ignored);
}

SharedVar var(const char *Name, uint64_t Bytes, uint64_t Align,
              uint64_t DeclOrder) {
  SharedVar V;
  V.Name = V.QualifiedName = Name;
  V.Bytes = Bytes;
  V.Align = Align;
  V.Emission.DeclOrder = DeclOrder;
  return V;
}

TranslationUnitFacts constantUnit() {
  TranslationUnitFacts TU;
  TU.File = "c.cu";
  TU.Arch = "sm_80";
  // char[3], double[2], int[5], float[7], short, char[1], as ptxas saw them: 75
  // bytes.
  TU.ConstantVars = {var("a", 3, 1, 0),  var("b", 16, 8, 1), var("c", 20, 4, 2),
                     var("s", 28, 4, 3), var("t", 2, 2, 4),  var("n", 1, 1, 5)};
  for (size_t I = 0; I < TU.ConstantVars.size(); ++I)
    TU.ConstantEmission.TopLevel.push_back({EmissionEvent::Kind::Variable, I});
  return TU;
}

TEST(ScopesTest, ConstantMemoryIsLaidOutInEmissionOrder) {
  CapacityDatabase DB = builtin();
  ConstantMemoryReport C = constantMemory(constantUnit(), DB.lookup("sm_80"));
  ASSERT_TRUE(C.Bytes.has_value()) << C.UnknownReason;
  EXPECT_EQ(*C.Bytes, 75u);
  EXPECT_EQ(C.Limit, std::optional<uint64_t>(65536));
  ASSERT_EQ(C.Variables.size(), 6u);
  EXPECT_EQ(C.Variables[1].Offset, std::optional<uint64_t>(8));
}

// -rdc: ptxas sorts by alignment, largest first: 70 bytes.
TEST(ScopesTest, ConstantMemoryWithRdcIsSortedByAlignment) {
  CapacityDatabase DB = builtin();
  TranslationUnitFacts TU = constantUnit();
  TU.RelocatableDeviceCode = true;
  ConstantMemoryReport C = constantMemory(TU, DB.lookup("sm_80"));
  ASSERT_TRUE(C.Bytes.has_value());
  EXPECT_EQ(*C.Bytes, 70u);
  EXPECT_TRUE(C.Relocatable);
  EXPECT_EQ(C.Variables.front().Var.Name, "b");
}

TEST(ScopesTest, RegisterTilesSumArraysAndTakeTheLaunchBlock) {
  CapacityDatabase DB = builtin();
  TranslationUnitFacts TU;
  TU.LocalArrays = {var("acc", 256, 4, 0), var("frag", 30, 2, 1)};
  KernelFacts K;
  K.LocalArrays = {0, 1};
  LaunchSite L;
  L.BlockThreads = 128;
  K.Launches = {L};
  RegisterTileReport R = registerTiles(TU, K, DB.lookup("sm_90"), std::nullopt);
  EXPECT_EQ(R.BytesPerThread, std::optional<uint64_t>(286));
  EXPECT_EQ(R.RegistersPerThread, std::optional<uint64_t>(72)); // ceil(286 / 4)
  EXPECT_EQ(R.BytesPerBlock, std::optional<uint64_t>(286 * 128));
  EXPECT_EQ(R.Limit, std::optional<uint64_t>(255));
  EXPECT_EQ(R.LimitBasis, "registers.per_thread");

  R = registerTiles(TU, K, DB.lookup("sm_90"), 64);
  EXPECT_EQ(R.Limit, std::optional<uint64_t>(64));
  EXPECT_EQ(R.LimitBasis, "-maxrregcount=64");

  K.Bounds = LaunchBounds{256, 2, {}};
  R = registerTiles(TU, K, DB.lookup("sm_90"),
                    64); // -maxrregcount yields to the bounds
  EXPECT_EQ(R.Limit, std::optional<uint64_t>(128));
  EXPECT_EQ(R.LimitBasis, "__launch_bounds__(256, 2)");
}

TEST(ScopesTest, TensorMemoryOnlyWhereTheArchitectureHasIt) {
  CapacityDatabase DB = builtin();
  KernelFacts K;
  TmemAllocation A;
  A.Form = "tcgen05.alloc";
  A.Columns = 128;
  K.TmemAllocations = {A, A};
  EXPECT_FALSE(tensorMemory(K, DB.lookup("sm_90")).has_value());
  auto T = tensorMemory(K, DB.lookup("sm_100a"));
  ASSERT_TRUE(T.has_value());
  EXPECT_EQ(T->Columns, std::optional<uint64_t>(256));
  EXPECT_EQ(T->Capacity, std::optional<uint64_t>(512));
  K.TmemAllocations[1].Columns.reset();
  K.TmemAllocations[1].UnknownReason = Reason::resting(
      ReasonKind::ColumnsNotConstant, {ReasonKind::ValueParameter, {"n"}});
  T = tensorMemory(K, DB.lookup("sm_100a"));
  EXPECT_FALSE(T->Columns.has_value());
  EXPECT_NE(T->UnknownReason.find("is unknown: the column count is not a "
                                  "compile-time constant: it depends on 'n', "
                                  "a function parameter"),
            std::string::npos)
      << T->UnknownReason;
  EXPECT_TRUE(validTmemAllocation(32, 32, 512));
  EXPECT_TRUE(validTmemAllocation(512, 32, 512));
  EXPECT_FALSE(validTmemAllocation(48, 32, 512));
  EXPECT_FALSE(validTmemAllocation(16, 32, 512));
  EXPECT_FALSE(validTmemAllocation(1024, 32, 512));
}

} // namespace
} // namespace tilefit
