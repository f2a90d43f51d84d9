//===- CallGraphTest.cpp - The call-graph stage on hand-built facts -------===//
//
// model/CallGraph.h decides from the raw call graph what each kernel reaches:
// the variables (depth-first, callees in source order), those never referenced,
// those a function kept out of line refers to, the per-thread arrays live at
// once and the Tensor Memory requests.
//
//===----------------------------------------------------------------------===//
#include "tilefit/model/CallGraph.h"

#include <gtest/gtest.h>

namespace tilefit {
namespace {

using Indices = std::vector<size_t>;

/// A unit of \p Vars `__shared__` variables, \p Arrays per-thread arrays of the
/// given sizes (unset: unknown) and \p Functions functions; kernel 0 is
/// function 0.
TranslationUnitFacts unit(size_t Vars,
                          std::vector<std::optional<uint64_t>> Arrays,
                          size_t Functions) {
  TranslationUnitFacts TU;
  for (size_t I = 0; I < Vars; ++I) {
    SharedVar V;
    V.Name = "v" + std::to_string(I);
    TU.Vars.push_back(V);
  }
  for (const std::optional<uint64_t> &Bytes : Arrays) {
    SharedVar A;
    A.Bytes = Bytes;
    TU.LocalArrays.push_back(A);
  }
  TU.Functions.resize(Functions);
  for (size_t I = 0; I < Functions; ++I)
    TU.Functions[I].Name = "f" + std::to_string(I);
  KernelFacts K;
  K.Name = "k";
  K.Function = 0;
  TU.Kernels.push_back(K);
  return TU;
}

TEST(CallGraph, ReachesDepthFirstWithCalleesInSourceOrder) {
  // f0 -> f1 -> f3, f0 -> f2; f2 -> f1 again (each once). f4 is reached by
  // nothing.
  TranslationUnitFacts TU = unit(5, {}, 5);
  TU.Functions[0].Callees = {1, 2};
  TU.Functions[1].Callees = {3};
  TU.Functions[2].Callees = {1};
  TU.Functions[0].SharedRefs = {4};
  TU.Functions[1].SharedRefs = {2};
  TU.Functions[2].SharedRefs = {0, 2};
  TU.Functions[3].SharedRefs = {1};
  TU.Functions[4].SharedRefs = {3};
  EXPECT_EQ(functionsReachedFrom(TU, 0), (Indices{0, 1, 3, 2}));
  resolveCallGraph(TU);
  EXPECT_EQ(TU.Kernels[0].Reached, (Indices{4, 2, 1, 0}));
  for (const SharedVar &V : TU.Vars)
    EXPECT_FALSE(V.ReferencedOutOfLine) << V.Name;
}

TEST(CallGraph, NoinlineAndRecursiveFunctionsKeepTheirVariablesOutOfLine) {
  // f1 is __noinline__; f2 and f3 call each other; f4 is inlined; f0 is the
  // kernel, which is out of line by nature but keeps its own variables.
  TranslationUnitFacts TU = unit(5, {}, 5);
  TU.Functions[0].Callees = {1, 2, 4};
  TU.Functions[2].Callees = {3};
  TU.Functions[3].Callees = {2};
  TU.Functions[1].NoInline = true;
  TU.Functions[0].SharedRefs = {0};
  TU.Functions[1].SharedRefs = {1};
  TU.Functions[2].SharedRefs = {2};
  TU.Functions[3].SharedRefs = {3};
  TU.Functions[4].SharedRefs = {4};
  resolveCallGraph(TU);
  std::vector<bool> OutOfLine;
  for (const SharedVar &V : TU.Vars)
    OutOfLine.push_back(V.ReferencedOutOfLine);
  EXPECT_EQ(OutOfLine, (std::vector<bool>{false, true, true, true, false}));
}

TEST(CallGraph, AKernelCallingItselfIsNoCycleForItsOwnVariables) {
  TranslationUnitFacts TU = unit(1, {}, 1);
  TU.Functions[0].Callees = {0};
  TU.Functions[0].SharedRefs = {0};
  resolveCallGraph(TU);
  EXPECT_EQ(TU.Kernels[0].Reached, (Indices{0}));
  EXPECT_FALSE(TU.Vars[0].ReferencedOutOfLine);
}

TEST(CallGraph, DeclaredAndNeverReferencedIsUnreferenced) {
  // f0 declares v0 (used) and v1 (not); f1, reached, declares v2, used only by
  // f2, which f0 does not reach; f2's own v3 is not the kernel's business.
  TranslationUnitFacts TU = unit(4, {}, 3);
  TU.Functions[0].Callees = {1};
  TU.Functions[0].SharedDecls = {0, 1};
  TU.Functions[0].SharedRefs = {0};
  TU.Functions[1].SharedDecls = {2};
  TU.Functions[2].SharedRefs = {2};
  TU.Functions[2].SharedDecls = {3};
  resolveCallGraph(TU);
  EXPECT_EQ(TU.Kernels[0].Reached, (Indices{0}));
  EXPECT_EQ(TU.Kernels[0].Unreferenced, (Indices{1, 2}));
}

TEST(CallGraph,
     LiveArraysAreTheKernelsAndItsHeaviestChainsWithEveryUnknownOne) {
  // Arrays: a0 16 B (f0), a1 64 B (f1), a2 8 B (f2), a3 100 B (f3), a4 unknown
  // (f1). f0 -> f1, f0 -> f2 -> f3: f1 holds 64, f2 holds 8 + 100 = 108, so
  // f2's chain is live with f0's own array; f1's known array is not, its
  // unknown one is.
  TranslationUnitFacts TU = unit(0, {16, 64, 8, 100, std::nullopt}, 4);
  TU.Functions[0].Callees = {1, 2};
  TU.Functions[2].Callees = {3};
  TU.Functions[0].LocalArrays = {0};
  TU.Functions[1].LocalArrays = {1, 4};
  TU.Functions[2].LocalArrays = {2};
  TU.Functions[3].LocalArrays = {3};
  resolveCallGraph(TU);
  EXPECT_EQ(TU.Kernels[0].LocalArrays, (Indices{0, 2, 3, 4}));

  // Equal weights: the first callee in source order is the chain.
  TU.LocalArrays[1].Bytes = 108;
  resolveCallGraph(TU);
  EXPECT_EQ(TU.Kernels[0].LocalArrays, (Indices{0, 1, 4}));
}

TEST(CallGraph, ArraysOfSiblingScopesAreNeverLiveTogether) {
  // f0: scope 1 is the body; scopes 2 and 3 two loops one after the other in
  // it, scope 4 a block inside the second. a0 (8 B) in the body, a1 and a2 (48
  // B together) in the first loop, a3 (16 B) in the second, a4 (16 B) in its
  // block: 8 + 48 against 8 + 16 + 16.
  TranslationUnitFacts TU = unit(0, {8, 16, 32, 16, 16}, 2);
  FunctionFacts &F = TU.Functions[0];
  F.ScopeParents = {0, 0, 1, 1, 3};
  F.LocalArrays = {0, 1, 2, 3, 4};
  F.LocalArrayScopes = {1, 2, 2, 3, 4};
  resolveCallGraph(TU);
  EXPECT_EQ(TU.Kernels[0].LocalArrays, (Indices{0, 1, 2}));

  // A call in the second loop's block to a function holding 40 B: 8 + 16 + 16
  // + 40 is now the heaviest point.
  TU.LocalArrays.push_back(TU.LocalArrays[0]);
  TU.LocalArrays.back().Bytes = 40;
  TU.Functions[1].LocalArrays = {5};
  TU.Functions[0].Callees = {1};
  TU.Functions[0].CallScopes = {{1, 4}};
  resolveCallGraph(TU);
  EXPECT_EQ(TU.Kernels[0].LocalArrays, (Indices{0, 3, 4, 5}));

  // Called from the first loop instead: 8 + 48 + 40.
  TU.Functions[0].CallScopes = {{1, 2}};
  resolveCallGraph(TU);
  EXPECT_EQ(TU.Kernels[0].LocalArrays, (Indices{0, 1, 2, 5}));
}

TEST(CallGraph, ACycleCountsItsArraysWhereItIsEntered) {
  TranslationUnitFacts TU = unit(0, {4, 32}, 2);
  TU.Functions[0].Callees = {1};
  TU.Functions[1].Callees = {0};
  TU.Functions[0].LocalArrays = {0};
  TU.Functions[1].LocalArrays = {1};
  resolveCallGraph(TU);
  EXPECT_EQ(TU.Kernels[0].LocalArrays, (Indices{0, 1}));
}

TEST(CallGraph, TensorMemoryRequestsOfEveryFunctionReached) {
  TranslationUnitFacts TU = unit(0, {}, 3);
  TU.Functions[0].Callees = {1};
  TmemAllocation A;
  A.Form = "tcgen05.alloc";
  A.Columns = 128;
  TU.Functions[1].Tmem = {A};
  A.Columns = 256;
  TU.Functions[2].Tmem = {A}; // not reached
  resolveCallGraph(TU);
  ASSERT_EQ(TU.Kernels[0].TmemAllocations.size(), 1u);
  EXPECT_EQ(TU.Kernels[0].TmemAllocations[0].Columns, 128u);
}

TEST(CallGraph,
     AKernelWithoutADefinitionReachesNothingAndResolvingTwiceChangesNothing) {
  TranslationUnitFacts TU = unit(1, {}, 1);
  TU.Functions[0].SharedRefs = {0};
  TU.Kernels.push_back(TU.Kernels[0]);
  TU.Kernels[1].Function.reset();
  TU.Kernels[1].Reached = {0}; // stale: replaced
  resolveCallGraph(TU);
  resolveCallGraph(TU);
  EXPECT_EQ(TU.Kernels[0].Reached, (Indices{0}));
  EXPECT_TRUE(TU.Kernels[1].Reached.empty());
}

} // namespace
} // namespace tilefit
