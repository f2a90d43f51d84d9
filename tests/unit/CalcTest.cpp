//===- CalcTest.cpp - The footprint calculator (tilefit calc) -------------===//
#include "tilefit/model/Calc.h"
#include "tilefit/reporters/CalcReporter.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sstream>

namespace tilefit {
namespace {

const CapacityDatabase &db() {
  static const CapacityDatabase DB = [] {
    auto Loaded = CapacityDatabase::load(std::string(TILEFIT_SOURCE_DIR) +
                                         "/data/capacity.json");
    EXPECT_TRUE(static_cast<bool>(Loaded)) << Loaded.error();
    return *Loaded;
  }();
  return DB;
}

CalcResult calc(const CalcRequest &Req) {
  auto R = calculate(Req, &db());
  EXPECT_TRUE(static_cast<bool>(R)) << R.error();
  return R ? *R : CalcResult{};
}

std::string errorOf(const CalcRequest &Req) {
  auto R = calculate(Req, &db());
  EXPECT_FALSE(static_cast<bool>(R)) << "accepted";
  return R ? "" : R.error();
}

CalcRequest request(std::vector<uint64_t> Tile, std::string DType,
                    uint64_t Versions = 1) {
  CalcRequest Req;
  Req.Tile = std::move(Tile);
  Req.DType = std::move(DType);
  Req.Versions = Versions;
  return Req;
}

bool contains(const std::string &Text, const std::string &Part) {
  return Text.find(Part) != std::string::npos;
}

TEST(CalcTest, EveryElementTypeByNameAndCudaSpelling) {
  struct Expect {
    const char *Name;
    unsigned Bits, ValueBits;
    bool Packed;
    const char *Packing;
    std::vector<std::string> Cuda;
  };
  const Expect Table[] = {
      {"bool", 8, 8, false, "1 per byte", {"bool"}},
      {"int4", 4, 4, true, "2 per byte", {}},
      {"int8", 8, 8, false, "1 per byte", {"int8_t", "signed char", "char"}},
      {"uint8", 8, 8, false, "1 per byte", {"uint8_t", "unsigned char"}},
      {"float8_e4m3fn", 8, 8, false, "1 per byte", {"__nv_fp8_e4m3"}},
      {"float8_e5m2", 8, 8, false, "1 per byte", {"__nv_fp8_e5m2"}},
      {"float6_e2m3fn", 6, 6, true, "4 per 3 bytes", {}},
      {"float6_e2m3fn_unpacked", 8, 6, false, "1 per byte", {"__nv_fp6_e2m3"}},
      {"float6_e3m2fn", 6, 6, true, "4 per 3 bytes", {}},
      {"float6_e3m2fn_unpacked", 8, 6, false, "1 per byte", {"__nv_fp6_e3m2"}},
      {"float4_e2m1fn", 4, 4, true, "2 per byte", {}},
      {"float4_e2m1fn_unpacked", 8, 4, false, "1 per byte", {"__nv_fp4_e2m1"}},
      {"float16", 16, 16, false, "2 bytes each", {"__half", "half"}},
      {"bfloat16",
       16,
       16,
       false,
       "2 bytes each",
       {"__nv_bfloat16", "nv_bfloat16"}},
      {"float32", 32, 32, false, "4 bytes each", {"float"}},
      {"float64", 64, 64, false, "8 bytes each", {"double"}},
  };
  ASSERT_EQ(elementTypes().size(), std::size(Table));
  for (const Expect &E : Table) {
    const ElementType *T = findElementType(E.Name);
    ASSERT_NE(T, nullptr) << E.Name;
    EXPECT_EQ(T->Name, E.Name);
    EXPECT_EQ(T->Bits, E.Bits) << E.Name;
    EXPECT_EQ(T->ValueBits, E.ValueBits) << E.Name;
    EXPECT_EQ(T->packed(), E.Packed) << E.Name;
    EXPECT_EQ(T->packing(), E.Packing) << E.Name;
    EXPECT_EQ(T->CudaNames, E.Cuda) << E.Name;
    for (const std::string &C : E.Cuda)
      EXPECT_EQ(findElementType(C), T) << C;
    // One element, rounded up to a whole byte.
    EXPECT_EQ(calc(request({1}, E.Name)).BytesPerCopy, 1u + (E.Bits - 1) / 8)
        << E.Name;
  }
  EXPECT_EQ(findElementType("fp31"), nullptr);
  EXPECT_EQ(findElementType("__nv_fp4x2_e2m1"),
            nullptr); // Two values per element.
  EXPECT_EQ(findElementType("Float31"), nullptr);
}

TEST(CalcTest, AliasesAndByteCounts) {
  for (auto [Alias, Name] : std::vector<std::pair<const char *, const char *>>{
           {"bf16", "bfloat16"},
           {"BF16", "bfloat16"},
           {"torch.bfloat16", "bfloat16"},
           {"cutlass::half_t", "float16"},
           {"fp16", "float16"},
           {"e4m3", "float8_e4m3fn"},
           {"mxfp8", "float8_e4m3fn"},
           {"e5m2", "float8_e5m2"},
           {"nvfp4", "float4_e2m1fn"},
           {"cute::float_e2m1_t", "float4_e2m1fn"},
           {"fp32", "float32"},
           {"tf32", "float32"},
           {"fp64", "float64"},
           {"s4", "int4"},
           {"u8", "uint8"},
           {"Float32", "float32"}}) {
    const ElementType *T = findElementType(Alias);
    ASSERT_NE(T, nullptr) << Alias;
    EXPECT_EQ(T->Name, Name) << Alias;
  }
  EXPECT_EQ(findElementType("bf17"), nullptr);
  EXPECT_EQ(findElementType("torch."), nullptr);
  for (auto [Text, Bytes] :
       std::vector<std::pair<const char *, uint64_t>>{{"232448", 232448},
                                                      {"228KiB", 233472},
                                                      {"228 KiB", 233472},
                                                      {"227K", 232448},
                                                      {"64kb", 65536},
                                                      {"1.5MiB", 1572864},
                                                      {"2M", 2097152},
                                                      {"1GiB", 1073741824},
                                                      {"0.5KiB", 512},
                                                      {"12B", 12}}) {
    auto B = parseCalcBytes("--capacity", Text);
    ASSERT_TRUE(B) << Text << ": " << B.error();
    EXPECT_EQ(*B, Bytes) << Text;
  }
  for (const char *Bad : {"", "KiB", "1.0001KiB", "12 parsecs", "-4KiB",
                          "99999999999999999999", "17179869184GiB", "1..5K"})
    EXPECT_FALSE(parseCalcBytes("--capacity", Bad)) << Bad;
}

TEST(CalcTest, SubByteTypesPackByBits) {
  // int4 and fp4: 2 per byte; an odd count rounds up.
  for (const char *T : {"int4", "float4_e2m1fn"}) {
    EXPECT_EQ(calc(request({2}, T)).BytesPerCopy, 1u) << T;
    EXPECT_EQ(calc(request({3}, T)).BytesPerCopy, 2u) << T;   // 12 bits
    EXPECT_EQ(calc(request({64}, T)).BytesPerCopy, 32u) << T; // 256 bits
    EXPECT_EQ(calc(request({65}, T)).BytesPerCopy, 33u) << T; // 260 bits
  }
  // fp6: 4 per 3 bytes.
  for (const char *T : {"float6_e2m3fn", "float6_e3m2fn"}) {
    EXPECT_EQ(calc(request({4}, T)).BytesPerCopy, 3u) << T; // 24 bits
    EXPECT_EQ(calc(request({1}, T)).BytesPerCopy, 1u) << T; // 6 bits
    EXPECT_EQ(calc(request({2}, T)).BytesPerCopy, 2u) << T; // 12 bits
    EXPECT_EQ(calc(request({3}, T)).BytesPerCopy, 3u) << T; // 18 bits
    EXPECT_EQ(calc(request({5}, T)).BytesPerCopy, 4u) << T; // 30 bits
    EXPECT_EQ(calc(request({8}, T)).BytesPerCopy, 6u) << T; // 48 bits
  }
  // The unpacked forms and CUDA's scalar types: one value per byte.
  EXPECT_EQ(calc(request({3}, "float4_e2m1fn_unpacked")).BytesPerCopy, 3u);
  EXPECT_EQ(calc(request({3}, "__nv_fp4_e2m1")).BytesPerCopy, 3u);
  EXPECT_EQ(calc(request({5}, "__nv_fp6_e2m3")).BytesPerCopy, 5u);
  // Rounding applies per copy: three versions of 1 int4 are 3 bytes, not 2.
  EXPECT_EQ(calc(request({1}, "int4", 3)).TotalBytes, 3u);
}

TEST(CalcTest, HandCheckedTable) {
  struct Case {
    std::vector<uint64_t> Tile;
    const char *DType;
    uint64_t Versions;
    uint64_t Elements, PerCopy, Total;
  };
  const Case Table[] = {
      // 128*256 = 32768 elements; x 4 B = 131072; x 2 = 262144
      {{128, 256}, "float32", 2, 32768, 131072, 262144},
      // 64*64 = 4096; x 2 B = 8192; x 1
      {{64, 64}, "__half", 1, 4096, 8192, 8192},
      // 128*128 = 16384; x 2 B = 32768; x 3 = 98304
      {{128, 128}, "bfloat16", 3, 16384, 32768, 98304},
      // 128*64 = 8192; x 1 B = 8192; x 4 = 32768
      {{128, 64}, "float8_e4m3fn", 4, 8192, 8192, 32768},
      // 256*128 = 32768; x 4 bits = 131072 bits = 16384 B; x 2 = 32768
      {{256, 128}, "float4_e2m1fn", 2, 32768, 16384, 32768},
      // 63 x 4 bits = 252 bits = 31.5 B -> 32
      {{63}, "float4_e2m1fn", 1, 63, 32, 32},
      // 128*128 = 16384 fp4 in one byte each = 16384 B
      {{128, 128}, "float4_e2m1fn_unpacked", 1, 16384, 16384, 16384},
      // 128*128 = 16384; x 6 bits = 98304 bits = 12288 B
      {{128, 128}, "float6_e2m3fn", 1, 16384, 12288, 12288},
      // 5 x 6 bits = 30 bits = 3.75 B -> 4
      {{5}, "float6_e3m2fn", 1, 5, 4, 4},
      // 7 x 6 bits = 42 bits = 5.25 B -> 6; x 3 = 18
      {{7}, "float6_e2m3fn", 3, 7, 6, 18},
      // 33 x 4 bits = 132 bits = 16.5 B -> 17
      {{33}, "int4", 1, 33, 17, 17},
      // 256*256 = 65536; x 4 bits = 262144 bits = 32768 B; x 2 = 65536
      {{256, 256}, "int4", 2, 65536, 32768, 65536},
      // 32*32*4 = 4096; x 8 B = 32768
      {{32, 32, 4}, "double", 1, 4096, 32768, 32768},
      // 1000 bool, 1 B each
      {{1000}, "bool", 1, 1000, 1000, 1000},
      // 3*5 = 15 uint8 = 15 B; x 2 = 30
      {{3, 5}, "uint8", 2, 15, 15, 30},
      // 64*64 = 4096 __nv_fp6_e2m3 (sizeof 1) = 4096 B
      {{64, 64}, "__nv_fp6_e2m3", 1, 4096, 4096, 4096},
  };
  for (const Case &C : Table) {
    CalcResult R = calc(request(C.Tile, C.DType, C.Versions));
    EXPECT_EQ(R.Elements, C.Elements) << C.DType;
    EXPECT_EQ(R.BytesPerCopy, C.PerCopy) << C.DType;
    EXPECT_EQ(R.TotalBytes, C.Total) << C.DType;
  }
}

TEST(CalcTest, OverflowIsAnErrorNeverAWrongNumber) {
  // 2^32 x 2^32 elements: 2^64 does not fit.
  EXPECT_TRUE(contains(errorOf(request({1ull << 32, 1ull << 32}, "float32")),
                       "element count overflows 64 bits"));
  // 2^61 float64 = 2^64 bytes.
  EXPECT_TRUE(contains(errorOf(request({1ull << 61}, "float64")),
                       "overflow 64 bits in bytes"));
  // 2^62 int4: 2^64 bits, but 2^61 bytes fit.
  EXPECT_EQ(calc(request({1ull << 62}, "int4")).BytesPerCopy, 1ull << 61);
  // 2^60 bytes x 16 versions = 2^64.
  EXPECT_TRUE(contains(errorOf(request({1ull << 60}, "uint8", 16)),
                       "total overflows 64 bits"));
  EXPECT_EQ(calc(request({1ull << 60}, "uint8", 15)).TotalBytes, 15ull << 60);
}

TEST(CalcTest, Errors) {
  std::string E = errorOf(request({128}, "fp31"));
  EXPECT_TRUE(contains(E, "unknown element type 'fp31'")) << E;
  EXPECT_TRUE(contains(E, "float4_e2m1fn_unpacked")) << E;
  EXPECT_TRUE(contains(E, "__nv_bfloat16")) << E;
  EXPECT_TRUE(contains(errorOf(request({128}, "__nv_fp4x2_e2m1")),
                       "holds several values"));
  EXPECT_TRUE(contains(errorOf(request({128}, "")), "no element type"));
  EXPECT_TRUE(contains(errorOf(request({}, "float32")), "no tile"));
  EXPECT_TRUE(
      contains(errorOf(request({128, 0}, "float32")), "tile dimension 2 is 0"));
  EXPECT_TRUE(contains(errorOf(request({128}, "float32", 0)), "--versions 0"));

  CalcRequest Req = request({128}, "float32");
  Req.Threads = 0;
  EXPECT_TRUE(contains(errorOf(Req), "--threads 0"));
  Req.Threads.reset();
  Req.Scope = CalcScope::Registers;
  EXPECT_TRUE(contains(errorOf(Req), "--scope registers needs --threads"));
  Req.Scope = CalcScope::Shared;
  Req.Arch = "sm_91";
  E = errorOf(Req);
  EXPECT_TRUE(contains(E, "unknown architecture 'sm_91'")) << E;
  EXPECT_TRUE(contains(E, "knows sm_75, sm_80,")) << E; // Oldest first.
  EXPECT_TRUE(contains(E, "sm_121f")) << E;
  EXPECT_TRUE(contains(calculate(Req, nullptr).error(),
                       "unknown architecture 'sm_91'"));
  Req.Arch = "sm_90";
  Req.Capacity = 1000;
  EXPECT_TRUE(contains(errorOf(Req), "--arch or --capacity, not both"));
  Req.Capacity.reset();
  Req.Scope = CalcScope::Tmem;
  E = errorOf(Req);
  EXPECT_TRUE(contains(E, "no tensor memory on sm_90")) << E;
  EXPECT_TRUE(contains(E, "sm_100, sm_103, sm_110")) << E;
  Req.Arch = "sm_120a";
  EXPECT_TRUE(contains(errorOf(Req), "no tensor memory on sm_120a"));
  // sm_88: nvcc knows it, no NVIDIA table documents it; the database leaves it
  // unknown.
  Req.Arch = "sm_88";
  EXPECT_TRUE(contains(errorOf(Req), "does not know sm_88's tensor memory"));
  Req.Scope = CalcScope::Shared;
  EXPECT_TRUE(
      contains(errorOf(Req), "shared_memory.block_optin_max is unknown"));
  Req.Scope = CalcScope::Registers;
  Req.Threads = 32;
  EXPECT_TRUE(contains(errorOf(Req), "registers.per_thread is unknown"));
}

TEST(CalcTest, ParseNumbers) {
  EXPECT_EQ(*parseCalcNumber("--versions", "2"), 2u);
  EXPECT_EQ(*parseCalcNumber("--capacity", "0"), 0u);
  EXPECT_EQ(*parseCalcNumber("x", "18446744073709551615"),
            18446744073709551615ull);
  EXPECT_EQ(parseCalcNumber("tile dimension", "-5").error(),
            "tile dimension -5 is negative");
  EXPECT_EQ(parseCalcNumber("--threads", "12a").error(),
            "--threads '12a' is not a whole number");
  EXPECT_EQ(parseCalcNumber("--threads", "").error(),
            "--threads '' is not a whole number");
  EXPECT_EQ(parseCalcNumber("--threads", "1.5").error(),
            "--threads '1.5' is not a whole number");
  EXPECT_EQ(parseCalcNumber("x", "18446744073709551616").error(),
            "x 18446744073709551616 does not fit in 64 bits");
}

TEST(CalcTest, SharedFitAndOvershoot) {
  CalcRequest Req = request({128, 256}, "float32", 2);
  Req.Arch = "sm_90";
  CalcResult R = calc(Req);
  ASSERT_TRUE(R.Fit);
  EXPECT_EQ(R.Fit->Capacity, 232448u);
  EXPECT_EQ(R.Fit->Field, "shared_memory.block_optin_max");
  EXPECT_FALSE(R.Fit->Fits);
  EXPECT_EQ(R.Fit->Over, 262144u - 232448u); // 29696
  Req.Versions = 1;
  R = calc(Req);
  EXPECT_TRUE(R.Fit->Fits);
  EXPECT_EQ(R.Fit->Headroom, 232448u - 131072u); // 101376
  ASSERT_EQ(R.Notes.size(), 1u);                 // Above 48 KiB: opt-in.
  EXPECT_TRUE(
      contains(R.Notes[0], "cudaFuncAttributeMaxDynamicSharedMemorySize"));
  Req.Arch = "sm_90a"; // A variant reads its base architecture's entry.
  EXPECT_EQ(calc(Req).Fit->Capacity, 232448u);
  Req.Arch = "sm_120";
  EXPECT_EQ(calc(Req).Fit->Over, 131072u - 101376u);
  // Exactly full fits, with nothing left.
  Req = request({232448}, "uint8");
  Req.Arch = "sm_100";
  R = calc(Req);
  EXPECT_TRUE(R.Fit->Fits);
  EXPECT_EQ(R.Fit->Headroom, 0u);
}

// Several operands (the A and B tiles of a stage) are summed, each with its
// own type and versions, packed types by their bits; the sum is checked as one
// tile of that many bytes would be.
TEST(CalcTest, OperandsAreSummed) {
  CalcRequest Common;
  Common.Arch = "sm_80";
  auto Sum = calculateSum({request({128, 32}, "float16", 3),
                           request({32, 128}, "float16", 3),
                           request({128, 7}, "int4")},
                          Common, &db());
  ASSERT_TRUE(static_cast<bool>(Sum)) << Sum.error();
  ASSERT_EQ(Sum->Operands.size(), 3u);
  EXPECT_EQ(Sum->Operands[0].TotalBytes, 24576u);
  EXPECT_EQ(Sum->Operands[1].TotalBytes, 24576u);
  EXPECT_EQ(Sum->Operands[2].TotalBytes, 448u); // 896 values, 2 per byte
  EXPECT_EQ(Sum->TotalBytes, 24576u + 24576u + 448u);
  EXPECT_EQ(Sum->Elements, 4096u + 4096u + 896u);
  CalcRequest Whole = request({49600}, "uint8");
  Whole.Arch = "sm_80";
  const CalcResult One = calc(Whole);
  ASSERT_TRUE(Sum->Fit && One.Fit);
  EXPECT_EQ(Sum->Fit->Capacity, One.Fit->Capacity);
  EXPECT_EQ(Sum->Fit->Headroom, One.Fit->Headroom);
  EXPECT_EQ(Sum->Fit->Fits, One.Fit->Fits);
  EXPECT_EQ(Sum->Notes, One.Notes);
  // One operand is calculate() of it; an operand's error names it.
  auto Single = calculateSum({request({128, 32}, "float16", 3)}, Common, &db());
  ASSERT_TRUE(static_cast<bool>(Single));
  EXPECT_TRUE(Single->Operands.empty());
  EXPECT_EQ(Single->TotalBytes, 24576u);
  auto Bad =
      calculateSum({request({128, 32}, "float16"), request({32, 0}, "float16")},
                   Common, &db());
  ASSERT_FALSE(static_cast<bool>(Bad));
  EXPECT_EQ(Bad.error().rfind("operand 2: tile dimension 2 is 0", 0), 0u)
      << Bad.error();
  // Threads spread the sum.
  Common.Arch.clear();
  Common.Threads = 128;
  Sum =
      calculateSum({request({64, 64}, "float32"), request({64, 64}, "float16")},
                   Common, nullptr);
  ASSERT_TRUE(static_cast<bool>(Sum)) << Sum.error();
  EXPECT_EQ(*Sum->BytesPerThread, (16384u + 8192u) / 128);
  EXPECT_EQ(*Sum->RegistersPerThread, 48u);
}

TEST(CalcTest, RegistersPerThread) {
  // 64*64 float32 = 16384 B over 128 threads = 128 B = 32 registers.
  CalcRequest Req = request({64, 64}, "float32");
  Req.Threads = 128;
  CalcResult R = calc(Req);
  EXPECT_EQ(R.BytesPerThread, 128u);
  EXPECT_EQ(R.RegistersPerThread, 32u);
  EXPECT_FALSE(R.Fit);
  // 10 float16 = 20 B over 3 threads = ceil(6.67) = 7 B = ceil(1.75) = 2
  // registers.
  Req = request({10}, "float16");
  Req.Threads = 3;
  R = calc(Req);
  EXPECT_EQ(R.BytesPerThread, 7u);
  EXPECT_EQ(R.RegistersPerThread, 2u);

  // 256*256 float32 = 262144 B / 128 = 2048 B = 512 registers: 257 over the
  // 255.
  Req = request({256, 256}, "float32");
  Req.Threads = 128;
  Req.Scope = CalcScope::Registers;
  Req.Arch = "sm_90";
  R = calc(Req);
  ASSERT_TRUE(R.Fit);
  EXPECT_EQ(R.Fit->RegisterLimit, 255u);
  EXPECT_EQ(R.Fit->Capacity, 1020u);
  EXPECT_EQ(R.Fit->Used, 2048u);
  EXPECT_FALSE(R.Fit->Fits);
  EXPECT_EQ(R.Fit->Over, (512u - 255u) * 4);
  EXPECT_TRUE(contains(R.Notes.back(), "arrays alone"));
  // 256*260 float32 over 1024 threads: 260 B = 65 registers each, 66560 for the
  // block > 65536.
  Req.Tile = {256, 260};
  Req.Threads = 1024;
  R = calc(Req);
  EXPECT_EQ(R.RegistersPerThread, 65u);
  EXPECT_EQ(R.Fit->RegistersPerBlock, 66560u);
  EXPECT_FALSE(R.Fit->Fits);
  EXPECT_EQ(R.Fit->Over, 0u);
  ASSERT_EQ(R.Fit->Problems.size(), 1u);
  EXPECT_TRUE(
      contains(R.Fit->Problems[0], "66560 registers, more than the 65536"));
  // 2048 threads: more than a block has.
  Req.Threads = 2048;
  R = calc(Req);
  EXPECT_TRUE(contains(R.Fit->Problems[0], "at most 1024"));
  // --capacity is bytes per thread for registers: 256 registers = 1024 B, 4
  // over 1020.
  Req = request({128, 256}, "float32");
  Req.Threads = 128;
  Req.Scope = CalcScope::Registers;
  Req.Capacity = 1020;
  R = calc(Req);
  EXPECT_EQ(R.Fit->Used, 1024u);
  EXPECT_EQ(R.Fit->Over, 4u);
}

TEST(CalcTest, TensorMemory) {
  // 128*256 float32 = 131072 B = 256 columns of 128 lanes x 4 B; 512 columns =
  // 262144 B.
  CalcRequest Req = request({128, 256}, "float32");
  Req.Scope = CalcScope::Tmem;
  for (const char *A : {"sm_100a", "sm_103f", "sm_110"}) {
    Req.Arch = A;
    CalcResult R = calc(Req);
    ASSERT_TRUE(R.Fit) << A;
    EXPECT_EQ(R.Fit->Capacity, 262144u) << A;
    EXPECT_EQ(R.Fit->TmemColumns, 256u) << A;
    EXPECT_EQ(R.Fit->TmemColumnsAvailable, 512u) << A;
    EXPECT_TRUE(R.Fit->Fits) << A;
    EXPECT_EQ(R.Fit->Headroom, 131072u) << A;
  }
  Req.Arch = "sm_100";
  EXPECT_TRUE(contains(calc(Req).Notes.at(0), "sm_100a or sm_100f"));
  Req.Arch = "sm_100a";
  Req.Versions = 3; // 393216 B, 768 columns
  CalcResult R = calc(Req);
  EXPECT_FALSE(R.Fit->Fits);
  EXPECT_EQ(R.Fit->Over, 131072u);
  EXPECT_EQ(R.Fit->TmemColumns, 768u);
  // Without an architecture: a given capacity, or no verdict at all.
  Req.Arch.clear();
  Req.Capacity = 400000;
  EXPECT_TRUE(calc(Req).Fit->Fits);
  Req.Capacity.reset();
  EXPECT_FALSE(calc(Req).Fit);
}

TEST(CalcTest, TextReport) {
  CalcRequest Req = request({128, 256}, "float32", 2);
  Req.Arch = "sm_90";
  std::ostringstream OS;
  renderCalcText(calc(Req), OS);
  EXPECT_EQ(OS.str(), "tile 128 x 256 float32 (32 bits), 2 versions\n"
                      "elements      32768\n"
                      "per copy      131072 bytes (128 KiB)\n"
                      "total         262144 bytes (256 KiB)\n"
                      "sm_90 shared  232448 bytes (227 KiB) per block with "
                      "opt-in: does not fit "
                      "(29696 bytes over)\n");
  OS.str("");
  renderCalcText(calc(request({63}, "float4_e2m1fn")), OS);
  EXPECT_EQ(OS.str(),
            "tile 63 float4_e2m1fn (4 bits, packed 2 per byte), 1 version\n"
            "elements      63\n"
            "per copy      32 bytes\n"
            "total         32 bytes\n");
  OS.str("");
  renderCalcArithmetic(calc(Req), OS);
  EXPECT_TRUE(contains(OS.str(), "ceil(1048576 / 8)")) << OS.str();
  EXPECT_TRUE(contains(OS.str(), "262144 > 232448")) << OS.str();
}

TEST(CalcTest, JsonReport) {
  CalcRequest Req = request({64, 64}, "float32");
  Req.Threads = 128;
  Req.Scope = CalcScope::Registers;
  Req.Arch = "sm_90";
  std::ostringstream OS;
  renderCalcJson(calc(Req), OS);
  auto J = nlohmann::json::parse(OS.str());
  EXPECT_EQ(J["schema"], "tilefit-calc/1");
  EXPECT_EQ(J["tile"], nlohmann::json::array({64, 64}));
  EXPECT_EQ(J["dtype"], "float32");
  EXPECT_EQ(J["elements"], 4096);
  EXPECT_EQ(J["total_bytes"], 16384);
  EXPECT_EQ(J["total_human"], "16 KiB");
  EXPECT_EQ(J["total_mib"], 0.015625);
  EXPECT_EQ(J["registers_per_thread"], 32);
  EXPECT_EQ(J["fits"], true);
  EXPECT_EQ(J["capacity"]["registers_per_thread_limit"], 255);
  EXPECT_EQ(J["capacity"]["registers_per_block"], 4096);
  EXPECT_EQ(J["capacity"]["headroom_bytes"], (255 - 32) * 4);

  OS.str("");
  renderCalcJson(calc(request({1}, "int4")), OS);
  J = nlohmann::json::parse(OS.str());
  EXPECT_TRUE(J["fits"].is_null());
  EXPECT_TRUE(J["capacity"].is_null());
  EXPECT_TRUE(J["threads"].is_null());
  EXPECT_EQ(J["packed"], true);
  EXPECT_EQ(J["dtype_bits"], 4);
}

TEST(CalcTest, Tables) {
  std::ostringstream OS;
  renderElementTypes(false, OS);
  for (const ElementType &T : elementTypes())
    EXPECT_TRUE(contains(OS.str(), T.Name)) << T.Name;
  OS.str("");
  renderElementTypes(true, OS);
  auto J = nlohmann::json::parse(OS.str());
  EXPECT_EQ(J["dtypes"].size(), elementTypes().size());
  OS.str("");
  renderScopes(true, OS);
  J = nlohmann::json::parse(OS.str());
  ASSERT_EQ(J["scopes"].size(), 3u);
  EXPECT_EQ(J["scopes"][2]["name"], "tmem");
  for (const char *S : {"shared", "registers", "tmem"})
    EXPECT_EQ(scopeInfo(*parseCalcScope(S)).Name, S);
  EXPECT_FALSE(parseCalcScope("global"));
}

} // namespace
} // namespace tilefit
