//===- BanksTest.cpp - The bank model of one access (model/Banks.h) -------===//
//
// analyzeAccess on accesses written by hand: strides, widths and their phases,
// broadcast, 2D blocks, guards, loops, and what it refuses to evaluate; and the
// capacity database's bank model.
//
//===----------------------------------------------------------------------===//
#include "tilefit/model/Banks.h"

#include <gtest/gtest.h>

namespace tilefit {
namespace {

using Op = IndexExpr::Op;

/// Builds expressions: leaves and operations, each returning its node.
struct Ex {
  IndexExpr E;
  int leaf(Op O, int64_t V) {
    E.Nodes.push_back({O, V});
    return int(E.Nodes.size()) - 1;
  }
  int op(Op O, int A, int B = -1, int C = -1) {
    E.Nodes.push_back({O, 0, A, B, C});
    return int(E.Nodes.size()) - 1;
  }
  int k(int64_t V) { return leaf(Op::Const, V); }
  int tid(int64_t D) { return leaf(Op::ThreadIdx, D); }
};

/// threadIdx.x * Stride (+ Add).
IndexExpr strided(int64_t Stride, int64_t Add = 0) {
  Ex X;
  X.op(Op::Add, X.op(Op::Mul, X.tid(0), X.k(Stride)), X.k(Add));
  return X.E;
}

SharedAccess access(std::vector<IndexExpr> Subscripts, unsigned Width = 4) {
  SharedAccess A;
  A.Subscripts = std::move(Subscripts);
  A.Width = Width;
  return A;
}

BlockShape block(uint64_t X, uint64_t Y = 1, uint64_t Z = 1) {
  BlockShape B;
  B.Dim = {X, Y, Z};
  B.Known = true;
  B.Source = "launch";
  return B;
}

unsigned degree(const SharedAccess &A, std::vector<uint64_t> Shape,
                uint64_t Element, const BlockShape &B,
                const std::vector<AccessLoop> &Loops = {}) {
  BankVerdict V = analyzeAccess(A, Loops, Shape, Element, B, BankModel());
  EXPECT_TRUE(V.Analysed) << describe(V.Why);
  return V.Degree;
}

TEST(BanksTest, AStrideOfTwoToTheKWordsPutsTwoToTheKLanesInOneBank) {
  for (int64_t Stride : {1, 2, 4, 8, 16, 32, 64})
    EXPECT_EQ(degree(access({strided(Stride)}), {4096}, 4, block(128)),
              unsigned(std::min<int64_t>(Stride, 32)))
        << Stride;
  for (int64_t Odd : {3, 5, 33})
    EXPECT_EQ(degree(access({strided(Odd)}), {8192}, 4, block(128)), 1u);
}

TEST(BanksTest, WideAccessesAreServedInPhases) {
  // float2: a half-warp's 16 x 8 bytes fill the banks once.
  BankVerdict V = analyzeAccess(access({strided(1)}, 8), {}, {256}, 8,
                                block(64), BankModel());
  EXPECT_EQ(V.Degree, 1u);
  EXPECT_EQ(V.Wavefronts, (std::vector<unsigned>{1, 1}));
  EXPECT_EQ(V.LanesPerPhase, 16u);
  EXPECT_EQ(degree(access({strided(2)}, 8), {256}, 8, block(64)), 2u);
  // float4: quarter-warps.
  V = analyzeAccess(access({strided(1)}, 16), {}, {256}, 16, block(64),
                    BankModel());
  EXPECT_EQ(V.Wavefronts, (std::vector<unsigned>{1, 1, 1, 1}));
  EXPECT_EQ(degree(access({strided(2)}, 16), {512}, 16, block(64)), 2u);
}

TEST(BanksTest, LanesReadingOneWordShareIt) {
  Ex X;
  X.op(Op::Div, X.tid(0), X.k(32)); // one word per warp
  EXPECT_EQ(degree(access({X.E}), {64}, 4, block(256)), 1u);
  Ex Y;
  Y.op(Op::Rem, Y.tid(0), Y.k(2)); // two words, two banks
  EXPECT_EQ(degree(access({Y.E}), {64}, 4, block(256)), 1u);
}

TEST(BanksTest, AWarpOfA2DBlockSpansRows) {
  // tile[16][16] read as tile[threadIdx.x][threadIdx.y] by 16 x 16 threads.
  Ex Row, Col;
  Row.tid(0);
  Col.tid(1);
  EXPECT_EQ(degree(access({Row.E, Col.E}), {16, 16}, 4, block(16, 16)), 8u);
  EXPECT_EQ(degree(access({Col.E, Row.E}), {16, 16}, 4, block(16, 16)), 1u);
  // Padding the rows spreads the column over the banks.
  EXPECT_EQ(degree(access({Row.E, Col.E}), {32, 33}, 4, block(32, 8)), 1u);
  EXPECT_EQ(degree(access({Row.E, Col.E}), {32, 32}, 4, block(32, 8)), 32u);
}

TEST(BanksTest, GuardsChooseTheLanesAndLoopsTheWorstIteration) {
  // for (s = 1; s < 256; s *= 2) if (2*s*tid < 256) a[2*s*tid]: 8-way at s = 4.
  AccessLoop L;
  L.Counter = "s";
  {
    Ex I;
    I.k(1);
    L.Init = I.E;
    Ex C;
    C.op(Op::Lt, C.leaf(Op::Counter, 0), C.k(256));
    L.Condition = C.E;
    Ex N;
    N.op(Op::Mul, N.leaf(Op::Counter, 0), N.k(2));
    L.Next = N.E;
  }
  auto Index = [] {
    Ex X;
    X.op(Op::Mul, X.op(Op::Mul, X.k(2), X.leaf(Op::Counter, 0)), X.tid(0));
    return X;
  };
  SharedAccess A = access({Index().E});
  Ex G = Index();
  const int Address = int(G.E.Nodes.size()) - 1;
  const int Bound = G.k(256);
  G.op(Op::Lt, Address, Bound);
  A.Guards.push_back(G.E);
  A.Loops = {0};
  BankVerdict V = analyzeAccess(A, {L}, {256}, 4, block(256), BankModel());
  ASSERT_TRUE(V.Analysed) << describe(V.Why);
  EXPECT_EQ(V.Degree, 8u);
  EXPECT_EQ(V.WorstCounters, (std::vector<int64_t>{4}));
  EXPECT_EQ(V.ActiveLanes, 32u);
  // The warps with a lane taking part, step by step: 4, 2, then 1 six times.
  EXPECT_EQ(V.Requests, 12u);
  EXPECT_FALSE(V.EveryWarp) << "warps 4 to 7 never take part";
}

TEST(BanksTest, WhatCannotBeEvaluatedIsNotAnalysed) {
  // blockDim without a block.
  Ex X;
  X.op(Op::Add, X.tid(0), X.leaf(Op::BlockDim, 0));
  BankVerdict V =
      analyzeAccess(access({X.E}), {}, {4096}, 4, BlockShape(), BankModel());
  EXPECT_FALSE(V.Analysed);
  EXPECT_EQ(V.Why.Kind, ReasonKind::AccessBlockShapeUnknown);
  // A division by zero.
  Ex Z;
  Z.op(Op::Div, Z.tid(0), Z.k(0));
  V = analyzeAccess(access({Z.E}), {}, {64}, 4, block(32), BankModel());
  EXPECT_FALSE(V.Analysed);
  EXPECT_EQ(V.Why.Kind, ReasonKind::AccessNotEvaluable);
  // A counter that never moves.
  AccessLoop L;
  Ex I, C, N;
  I.k(0);
  C.op(Op::Lt, C.leaf(Op::Counter, 0), C.k(4));
  N.leaf(Op::Counter, 0);
  L.Init = I.E, L.Condition = C.E, L.Next = N.E;
  SharedAccess A = access({strided(1)});
  A.Loops = {0};
  V = analyzeAccess(A, {L}, {64}, 4, block(32), BankModel());
  EXPECT_FALSE(V.Analysed);
  EXPECT_EQ(V.Why.Kind, ReasonKind::AccessTooManyIterations);
  // A reason from the front end is kept.
  SharedAccess R = access({});
  R.NotAnalysable = {ReasonKind::AccessValueAtRunTime, {"n"}};
  V = analyzeAccess(R, {}, {64}, 4, block(32), BankModel());
  EXPECT_FALSE(V.Analysed);
  EXPECT_EQ(describe(V.Why),
            "its address depends on 'n', known only at run time");
}

TEST(BanksTest, WithoutABlockTheFirstWarpIsAnalysed) {
  Ex Row, Zero;
  Row.tid(0);
  Zero.tid(1); // threadIdx.y is 0 in the first warp
  BankVerdict V = analyzeAccess(access({Row.E, Zero.E}), {}, {32, 32}, 4,
                                BlockShape(), BankModel());
  ASSERT_TRUE(V.Analysed);
  EXPECT_EQ(V.Degree, 32u);
  EXPECT_EQ(V.Warps, 1u);
}

TEST(BanksTest, TheCapacityDatabaseGivesTheModel) {
  auto DB = CapacityDatabase::load(std::string(TILEFIT_SOURCE_DIR) +
                                   "/data/capacity.json");
  ASSERT_TRUE(static_cast<bool>(DB)) << DB.error();
  for (const char *A : {"sm_75", "sm_90", "sm_90a", "sm_100a", "sm_120"}) {
    const ArchCapacity *C = DB->lookup(A);
    ASSERT_NE(C, nullptr) << A;
    std::optional<BankModel> M = bankModelOf(*C);
    ASSERT_TRUE(M.has_value()) << A;
    EXPECT_EQ(M->Banks, 32u);
    EXPECT_EQ(M->BankBytes, 4u);
    EXPECT_EQ(M->phases(4), 1u);
    EXPECT_EQ(M->phases(8), 2u);
    EXPECT_EQ(M->phases(16), 4u);
    EXPECT_NE(M->Source.find("Programming Guide"), std::string::npos) << A;
  }
  // Another model for a future architecture: 64 banks.
  auto Over = CapacityDatabase::parse(
      R"({"schema": "tilefit-capacity/1", "architectures": {"sm_90":
          {"shared_memory_banks": {"banks": 64, "source": "test"}}}})",
      "over.json");
  ASSERT_TRUE(static_cast<bool>(Over)) << Over.error();
  CapacityDatabase Merged = *DB;
  ASSERT_FALSE(Merged.merge(*Over).has_value());
  std::optional<BankModel> M = bankModelOf(*Merged.lookup("sm_90"));
  ASSERT_TRUE(M.has_value());
  EXPECT_EQ(M->Banks, 64u);
  EXPECT_EQ(M->Source, "test");
  Ex X;
  X.op(Op::Mul, X.tid(0), X.k(32));
  EXPECT_EQ(analyzeAccess(access({X.E}), {}, {4096}, 4, block(32), *M).Degree,
            16u)
      << "64 banks: a stride of 32 words is 16-way";
  auto Bad = CapacityDatabase::parse(
      R"({"schema": "tilefit-capacity/1", "architectures": {"sm_90":
          {"shared_memory_banks": {"source": 4}}}})",
      "bad.json");
  ASSERT_FALSE(static_cast<bool>(Bad));
  EXPECT_NE(Bad.error().find("shared_memory_banks.source"), std::string::npos)
      << Bad.error();
}

} // namespace
} // namespace tilefit
