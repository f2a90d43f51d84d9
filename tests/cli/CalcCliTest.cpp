//===- CalcCliTest.cpp - tilefit calc, the built binary -------------------===//
#include "CliFixture.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace tilefit {
namespace test {
namespace {

class CalcCliTest : public CliTest {
protected:
  CommandResult calc(std::vector<std::string> Args) {
    Args.insert(Args.begin(), "calc");
    return tilefit(std::move(Args));
  }
};

bool contains(const std::string &Text, const std::string &Part) {
  return Text.find(Part) != std::string::npos;
}

const char Sm90DoubleBuffered[] =
    "tile 128 x 256 float32 (32 bits), 2 versions\n"
    "elements      32768\n"
    "per copy      131072 bytes (128 KiB)\n"
    "total         262144 bytes (256 KiB)\n"
    "sm_90 shared  232448 bytes (227 KiB) per block with opt-in: does not fit "
    "(29696 bytes over)\n";

TEST_F(CalcCliTest, WorkedExampleWithNoArguments) {
  CommandResult R = calc({});
  EXPECT_EQ(R.Status, 0) << R.Err;
  EXPECT_TRUE(contains(R.Out, Sm90DoubleBuffered)) << R.Out;
  EXPECT_TRUE(contains(R.Out, "ceil(1048576 / 8)")) << R.Out;
  EXPECT_TRUE(contains(R.Out, "does not fit, 29696 bytes over")) << R.Out;
  EXPECT_TRUE(contains(R.Out, "usage: tilefit calc")) << R.Out;
  // As JSON, the example's figures.
  R = calc({"--format=json"});
  EXPECT_EQ(R.Status, 0) << R.Err;
  EXPECT_EQ(json(R)["total_bytes"], 262144);
}

TEST_F(CalcCliTest, TileSpellings) {
  // Exit 1: it does not fit.
  for (std::vector<std::string> Tile :
       {std::vector<std::string>{"--tile", "128", "256"},
        {"--tile", "128,256"},
        {"--tile=128,256"},
        {"--tile=128", "256"},
        {"-tile", "128", "256"}}) {
    std::vector<std::string> Args = Tile;
    for (const char *A :
         {"--dtype", "float32", "--versions", "2", "--arch", "sm_90"})
      Args.push_back(A);
    CommandResult R = calc(Args);
    EXPECT_EQ(R.Status, 1) << Tile[0] << " " << Tile[1] << R.Err;
    EXPECT_EQ(R.Out, Sm90DoubleBuffered) << Tile[0] << " " << Tile[1];
  }
  // The numbers after --tile end at the next option, wherever --tile is.
  CommandResult R =
      calc({"--dtype", "int8", "--tile", "2", "3", "4", "--versions", "2"});
  EXPECT_EQ(R.Status, 0) << R.Err;
  EXPECT_TRUE(contains(R.Out, "tile 2 x 3 x 4 int8 (8 bits), 2 versions"))
      << R.Out;
  EXPECT_TRUE(contains(R.Out, "total         48 bytes\n")) << R.Out;
}

// Several --tile are operands, summed: the A and B tiles of a stage, each with
// its own --dtype and --versions where those are given once per --tile.
TEST_F(CalcCliTest, SeveralTilesAreSummed) {
  CommandResult R = calc({"--tile", "128x32", "--tile", "32x128", "--dtype",
                          "fp16", "--versions", "3", "--arch", "sm_80"});
  EXPECT_EQ(R.Status, 0) << R.Err;
  EXPECT_EQ(R.Out,
            "operand 1     tile 128 x 32 float16 (16 bits), 3 versions: 24576 "
            "bytes (24 KiB)\n"
            "operand 2     tile 32 x 128 float16 (16 bits), 3 versions: 24576 "
            "bytes (24 KiB)\n"
            "total         49152 bytes (48 KiB)\n"
            "sm_80 shared  166912 bytes (163 KiB) per block with opt-in: fits "
            "(117760 bytes left)\n")
      << R.Out;
  // Each its own type and versions.
  R = calc({"--tile", "64", "64", "--tile", "64", "64", "--dtype", "fp8",
            "--dtype", "fp16", "--versions", "2", "--versions", "1",
            "--format=json"});
  ASSERT_EQ(R.Status, 0) << R.Err;
  nlohmann::json J = json(R);
  ASSERT_EQ(J["operands"].size(), 2u) << J.dump();
  EXPECT_EQ(J["operands"][0]["total_bytes"], 8192);
  EXPECT_EQ(J["operands"][1]["total_bytes"], 8192);
  EXPECT_EQ(J["operands"][1]["dtype"], "float16");
  EXPECT_EQ(J["total_bytes"], 16384);
  // The arithmetic shows each operand and the sum.
  R = calc(
      {"--tile", "128x32", "--tile", "32x128", "--dtype", "fp16", "--explain"});
  EXPECT_TRUE(contains(R.Out, "  operand 2:\n")) << R.Out;
  EXPECT_TRUE(contains(R.Out, "= 8192 + 8192")) << R.Out;
  // A --dtype per operand or one for all; not two for three.
  R = calc({"--tile", "8", "--tile", "8", "--tile", "8", "--dtype", "fp16",
            "--dtype", "fp32"});
  EXPECT_EQ(R.Status, 2);
  EXPECT_TRUE(contains(R.Err, "--dtype is given 2 times: give it once, or "
                              "once per --tile (3)"))
      << R.Err;
}

// Blocks per SM for a block's threads, registers and shared memory (the
// figures themselves are checked against cuda_occupancy.h in
// OccupancyOracleTest); a block no SM holds exits 1.
TEST_F(CalcCliTest, OccupancyMode) {
  CommandResult R = calc({"--occupancy", "--threads", "256", "--registers",
                          "64", "--smem", "48KiB", "--arch", "sm_80,sm_90"});
  EXPECT_EQ(R.Status, 0) << R.Err;
  EXPECT_TRUE(contains(R.Out,
                       "block         256 threads, 64 registers per "
                       "thread, 49152 bytes (48 KiB) of shared memory\n"))
      << R.Out;
  EXPECT_TRUE(contains(R.Out, "sm_80         3 blocks per SM, 24 of 64 warps "
                              "(37.5%), limited by shared memory\n"))
      << R.Out;
  EXPECT_TRUE(contains(R.Out, "sm_90         4 blocks per SM, 32 of 64 warps "
                              "(50%)"))
      << R.Out;
  R = calc({"--occupancy", "--threads", "128", "--smem", "99000", "--arch",
            "sm_75", "--format=json"});
  EXPECT_EQ(R.Status, 1) << "sm_75 holds no such block\n" << R.Out;
  EXPECT_EQ(json(R)["architectures"][0]["blocks_per_sm"], 0);
  R = calc({"--occupancy", "--threads", "128", "--smem", "99000", "--arch",
            "sm_75"});
  EXPECT_TRUE(contains(R.Out, "more than a block can have there")) << R.Out;
  R = calc({"--occupancy", "--threads", "128"});
  EXPECT_EQ(R.Status, 2);
  EXPECT_TRUE(contains(R.Err, "--occupancy needs --arch and --threads"))
      << R.Err;
}

TEST_F(CalcCliTest, JsonOutput) {
  CommandResult R =
      calc({"--tile", "128", "256", "--dtype", "__nv_bfloat16", "--versions",
            "2", "--arch", "sm_90", "--format=json"});
  ASSERT_EQ(R.Status, 0) << R.Err;
  nlohmann::json J = json(R);
  EXPECT_EQ(J["schema"], "tilefit-calc/1");
  EXPECT_EQ(J["dtype"], "bfloat16");
  EXPECT_EQ(J["elements"], 32768);
  EXPECT_EQ(J["bytes_per_copy"], 65536);
  EXPECT_EQ(J["total_bytes"], 131072);
  EXPECT_EQ(J["total_human"], "128 KiB");
  EXPECT_EQ(J["total_kib"], 128.0);
  EXPECT_EQ(J["total_mib"], 0.125);
  EXPECT_EQ(J["fits"], true);
  EXPECT_EQ(J["capacity"]["arch"], "sm_90");
  EXPECT_EQ(J["capacity"]["field"], "shared_memory.block_optin_max");
  EXPECT_EQ(J["capacity"]["bytes"], 232448);
  EXPECT_EQ(J["capacity"]["headroom_bytes"], 232448 - 131072);
  EXPECT_EQ(J["capacity"]["over_bytes"], 0);
  EXPECT_EQ(J["notes"].size(), 1u); // Above 48 KiB: opt-in.
}

TEST_F(CalcCliTest, ExitStatuses) {
  EXPECT_EQ(calc({"--tile", "64", "64", "--dtype", "float32"}).Status,
            0); // no capacity
  EXPECT_EQ(
      calc({"--tile", "64", "64", "--dtype", "float32", "--arch", "sm_75"})
          .Status,
      0);
  EXPECT_EQ(
      calc({"--tile", "256", "256", "--dtype", "float32", "--arch", "sm_75"})
          .Status,
      1);
  struct Bad {
    std::vector<std::string> Args;
    const char *Message;
  };
  const Bad Cases[] = {
      {{"--tile", "128", "--dtype", "fp31"},
       "unknown element type 'fp31'; known: bool, int4"},
      {{"--tile", "128", "0", "--dtype", "float32"}, "tile dimension 2 is 0"},
      {{"--tile", "128", "-5", "--dtype", "float32"},
       "tile dimension -5 is negative"},
      {{"--tile", "12y4", "--dtype", "float32"},
       "tile dimension '12y4' is not a whole number"},
      {{"--tile", "12x", "--dtype", "float32"},
       "tile dimension '' is not a whole number"},
      {{"--tile", "4294967296", "4294967296", "--dtype", "float32"},
       "tile 4294967296 x 4294967296: the element count overflows 64 bits"},
      {{"--tile", "128", "--dtype", "float32", "--versions", "0"},
       "--versions 0"},
      {{"--tile", "128", "--dtype", "float32", "--threads", "0"},
       "--threads 0"},
      {{"--tile", "128", "--dtype", "float32", "--arch", "sm_91"},
       "unknown architecture 'sm_91'; the capacity database knows sm_75"},
      {{"--tile", "128", "--dtype", "float32", "--arch", "sm_90", "--capacity",
        "1"},
       "give --arch or --capacity, not both"},
      {{"--tile", "128", "--dtype", "float32", "--scope", "global"},
       "--scope global"},
      {{"--tile", "128", "--dtype", "float32", "--scope", "registers"},
       "--scope registers needs --threads"},
      {{"--tile", "128", "--dtype", "float32", "--format=xml"}, "--format=xml"},
      {{"--dtype", "float32"}, "no tile"},
      {{"--tile", "128"}, "no element type"},
  };
  for (const Bad &B : Cases) {
    CommandResult R = calc(B.Args);
    EXPECT_EQ(R.Status, 2) << B.Message;
    EXPECT_TRUE(
        contains(R.Err, std::string("tilefit calc: error: ") + B.Message))
        << R.Err;
    EXPECT_EQ(R.Out, "") << B.Message;
  }
  EXPECT_EQ(calc({"--no-such-option"}).Status, 2);
}

TEST_F(CalcCliTest, ListDtypesAndScopes) {
  CommandResult R = calc({"--list-dtypes"});
  ASSERT_EQ(R.Status, 0) << R.Err;
  for (const char *T :
       {"bool", "int4", "float8_e4m3fn", "__nv_fp8_e5m2", "float6_e3m2fn",
        "float4_e2m1fn_unpacked", "__nv_fp4_e2m1", "__half", "__nv_bfloat16",
        "float64", "4 per 3 bytes", "2 per byte"})
    EXPECT_TRUE(contains(R.Out, T)) << T;
  R = calc({"--list-dtypes", "--format=json"});
  ASSERT_EQ(R.Status, 0) << R.Err;
  nlohmann::json J = json(R);
  ASSERT_TRUE(J["dtypes"].is_array());
  EXPECT_EQ(J["dtypes"][1]["name"], "int4");
  EXPECT_EQ(J["dtypes"][1]["bits"], 4);

  R = calc({"--list-scopes"});
  ASSERT_EQ(R.Status, 0) << R.Err;
  for (const char *S : {"shared", "registers", "tmem", "block_optin_max",
                        "registers.per_thread", "tensor_memory.columns"})
    EXPECT_TRUE(contains(R.Out, S)) << S;
  R = calc({"--list-scopes", "--format=json"});
  EXPECT_EQ(json(R)["scopes"].size(), 3u);
}

TEST_F(CalcCliTest, RegistersPerThread) {
  // 128*128 float32 = 65536 B over 128 threads = 512 B = 128 registers of the
  // 255.
  CommandResult R =
      calc({"--tile", "128", "128", "--dtype", "float32", "--threads", "128",
            "--scope", "registers", "--arch", "sm_90"});
  EXPECT_EQ(R.Status, 0) << R.Err;
  EXPECT_TRUE(contains(
      R.Out, "per thread    512 bytes over 128 threads = 128 32-bit registers"))
      << R.Out;
  EXPECT_TRUE(contains(
      R.Out, "sm_90 registers  255 registers (1020 bytes) per thread: fits "
             "(127 registers left)"))
      << R.Out;
  EXPECT_TRUE(contains(R.Out, "arrays alone")) << R.Out;
  // 256*256: 512 registers per thread.
  R = calc({"--tile", "256", "256", "--dtype", "float32", "--threads", "128",
            "--scope", "registers", "--arch", "sm_90", "--format=json"});
  EXPECT_EQ(R.Status, 1) << R.Err;
  nlohmann::json J = json(R);
  EXPECT_EQ(J["registers_per_thread"], 512);
  EXPECT_EQ(J["capacity"]["over_bytes"], (512 - 255) * 4);
  // Registers per thread also with the shared scope, informational.
  R = calc({"--tile", "64", "--dtype", "float16", "--threads", "32"});
  EXPECT_EQ(R.Status, 0) << R.Err;
  EXPECT_TRUE(contains(R.Out, "4 bytes over 32 threads = 1 32-bit register\n"))
      << R.Out;
}

TEST_F(CalcCliTest, GivenCapacity) {
  CommandResult R = calc(
      {"--tile", "128", "256", "--dtype", "float32", "--capacity", "131072"});
  EXPECT_EQ(R.Status, 0) << R.Err;
  EXPECT_TRUE(contains(
      R.Out,
      "capacity      131072 bytes (128 KiB), given: fits (0 bytes left)"))
      << R.Out;
  R = calc(
      {"--tile", "128", "256", "--dtype", "float32", "--capacity", "131071"});
  EXPECT_EQ(R.Status, 1);
  EXPECT_TRUE(contains(R.Out, "does not fit (1 byte over)")) << R.Out;
  R = calc({"--tile", "128", "--dtype", "float32", "--capacity", "-1"});
  EXPECT_EQ(R.Status, 2);
  EXPECT_TRUE(contains(R.Err, "--capacity -1 is negative")) << R.Err;
}

TEST_F(CalcCliTest, TensorMemory) {
  CommandResult R = calc({"--tile", "128", "256", "--dtype", "float32",
                          "--scope", "tmem", "--arch", "sm_100a"});
  EXPECT_EQ(R.Status, 0) << R.Err;
  EXPECT_TRUE(contains(
      R.Out, "sm_100a tmem  262144 bytes (256 KiB) per SM, 512 columns x 128 "
             "lanes x 4 bytes: fits (131072 bytes left)"))
      << R.Out;
  EXPECT_TRUE(contains(R.Out, "columns       256 of 512")) << R.Out;
  R = calc({"--tile", "128", "256", "--dtype", "float32", "--versions", "3",
            "--scope", "tmem", "--arch", "sm_103a", "--format=json"});
  EXPECT_EQ(R.Status, 1) << R.Err;
  EXPECT_EQ(json(R)["capacity"]["tmem_columns"], 768);
  R = calc({"--tile", "128", "256", "--dtype", "float32", "--scope", "tmem",
            "--arch", "sm_90"});
  EXPECT_EQ(R.Status, 2);
  EXPECT_TRUE(contains(R.Err, "tilefit calc: error: no tensor memory on sm_90"))
      << R.Err;
  EXPECT_EQ(R.Out, "");
}

// What people type (issue 15.6): 128x64, bf16 and the other names of CUDA,
// PyTorch and CUTLASS, 228KiB, several architectures, the arithmetic on
// request; calc's own --help; a mistyped subcommand.
TEST_F(CalcCliTest, WhatPeopleType) {
  const char *Bf16 = "tile 128 x 64 bfloat16 (16 bits), 3 versions\n"
                     "elements      8192\n"
                     "per copy      16384 bytes (16 KiB)\n"
                     "total         49152 bytes (48 KiB)\n";
  for (const char *T : {"128x64", "128X64"}) {
    CommandResult R = calc({"--tile", T, "--dtype", "bf16", "--versions", "3"});
    EXPECT_EQ(R.Status, 0) << T << R.Err;
    EXPECT_TRUE(contains(R.Out, Bf16)) << T << "\n" << R.Out;
  }
  for (const char *D : {"bf16", "BF16", "torch.bfloat16", "cutlass::bfloat16_t",
                        "__nv_bfloat16"}) {
    CommandResult R =
        calc({"--tile", "128x64", "--dtype", D, "--versions", "3"});
    EXPECT_TRUE(contains(R.Out, Bf16)) << D << "\n" << R.Out << R.Err;
  }
  // The 16 KiB of a 128 x 64 tile at 16 bits, 8 at 8 bits, 4 packed at 4 bits.
  for (auto [D, Bytes] :
       std::vector<std::pair<const char *, int>>{{"fp16", 16384},
                                                 {"cutlass::half_t", 16384},
                                                 {"e4m3", 8192},
                                                 {"e5m2", 8192},
                                                 {"mxfp8", 8192},
                                                 {"torch.float8_e4m3fn", 8192},
                                                 {"nvfp4", 4096},
                                                 {"fp4", 4096},
                                                 {"fp32", 32768},
                                                 {"tf32", 32768}}) {
    CommandResult R = calc({"--tile", "128x64", "--dtype", D, "--format=json"});
    ASSERT_EQ(R.Status, 0) << D << R.Err;
    EXPECT_EQ(json(R)["total_bytes"], Bytes) << D;
  }
  // 228KiB is 233472 bytes.
  CommandResult R =
      calc({"--tile", "233472", "--dtype", "int8", "--capacity", "228KiB"});
  EXPECT_EQ(R.Status, 0) << R.Err;
  EXPECT_TRUE(
      contains(R.Out, "233472 bytes (228 KiB), given: fits (0 bytes left)"))
      << R.Out;
  R = calc({"--tile", "233473", "--dtype", "int8", "--capacity", "228 KiB"});
  EXPECT_EQ(R.Status, 1) << R.Err;
  R = calc({"--tile", "8", "--dtype", "int8", "--capacity", "12 parsecs"});
  EXPECT_EQ(R.Status, 2);
  EXPECT_TRUE(contains(R.Err, "expected bytes, or a number with KiB")) << R.Err;

  // A column per architecture; any that does not fit fails.
  R = calc({"--tile", "128x256", "--dtype", "float32", "--versions", "2",
            "--arch", "sm_80,sm_90"});
  EXPECT_EQ(R.Status, 1) << R.Err;
  EXPECT_TRUE(
      contains(R.Out, "              sm_80                            sm_90\n"))
      << R.Out;
  EXPECT_TRUE(contains(
      R.Out, "shared        166912 bytes (163 KiB)           232448 bytes (227 "
             "KiB)\n"))
      << R.Out;
  EXPECT_TRUE(contains(
      R.Out, "verdict       does not fit (95232 bytes over)  does not fit "
             "(29696 bytes over)"))
      << R.Out;
  R = calc({"--tile", "128x256", "--dtype", "float32", "--arch", "sm_80,sm_90",
            "--format=json"});
  EXPECT_EQ(R.Status, 0) << R.Err;
  nlohmann::json J = json(R);
  ASSERT_EQ(J["capacities"].size(), 2u);
  EXPECT_EQ(J["capacities"][1]["arch"], "sm_90");
  EXPECT_EQ(J["capacities"][1]["bytes"], 232448);
  EXPECT_EQ(J["fits"], true);

  // The arithmetic for any input.
  R = calc({"--tile", "64x64", "--dtype", "fp16", "--capacity", "8KiB",
            "--explain"});
  EXPECT_EQ(R.Status, 0) << R.Err;
  EXPECT_TRUE(contains(R.Out, "By hand:")) << R.Out;
  EXPECT_TRUE(contains(R.Out, "per copy   = ceil(65536 / 8)")) << R.Out;

  // calc's --help is calc's.
  R = calc({"--help"});
  EXPECT_EQ(R.Status, 0);
  EXPECT_EQ(R.Out.rfind("OVERVIEW: tilefit calc:", 0), 0u)
      << R.Out.substr(0, 300);
  EXPECT_TRUE(contains(R.Out, "--explain")) << R.Out;
  EXPECT_FALSE(contains(R.Out, "compile_commands.json")) << R.Out;
}

TEST_F(CalcCliTest, HelpListsEverySubcommandAndTyposAreNotFiles) {
  CommandResult R = tilefit({"--help"});
  EXPECT_EQ(R.Status, 0);
  for (const char *S : {"calc ", "diff ", "merge ", "lsp "})
    EXPECT_TRUE(contains(R.Out, std::string("  ") + S)) << S << "\n" << R.Out;
  R = tilefit({"dif", "a.json", "b.json"});
  EXPECT_EQ(R.Status, 2);
  EXPECT_TRUE(contains(R.Err, "unknown subcommand 'dif'; did you mean 'diff'?"))
      << R.Err;
  R = tilefit({"cacl", "--tile", "8"});
  EXPECT_TRUE(contains(R.Err, "did you mean 'calc'?")) << R.Err;
  // A file of that name is a source, as it always was.
  write("merg", "");
  R = tilefit({Dir + "/merg", "--"});
  EXPECT_FALSE(contains(R.Err, "did you mean")) << R.Err;
}

} // namespace
} // namespace test
} // namespace tilefit
