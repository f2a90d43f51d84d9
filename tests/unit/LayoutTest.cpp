//===- LayoutTest.cpp - The ptxas layout rules on synthetic units ---------===//
#include "tilefit/model/Layout.h"

#include <gtest/gtest.h>

#include <limits>

namespace tilefit {
namespace {

/// Builds units by hand: variables, kernels and the emission walk.
class UnitBuilder {
public:
  size_t var(const std::string &Name, uint64_t Bytes, uint64_t Align,
             std::vector<unsigned> Namespaces = {}) {
    SharedVar V;
    V.Name = V.QualifiedName = Name;
    V.Bytes = Bytes;
    V.Align = Align;
    V.Emission.Namespaces = std::move(Namespaces);
    V.Emission.DeclOrder = TU.Vars.size();
    TU.Vars.push_back(V);
    return TU.Vars.size() - 1;
  }
  size_t dynamicVar(const std::string &Name, uint64_t Align) {
    size_t I = var(Name, 0, Align);
    TU.Vars[I].Bytes.reset();
    TU.Vars[I].IsDynamic = true;
    return I;
  }
  size_t kernel(const std::string &Name, std::vector<size_t> Reached) {
    KernelFacts K;
    K.Name = K.Mangled = Name;
    K.Reached = std::move(Reached);
    TU.Kernels.push_back(K);
    return TU.Kernels.size() - 1;
  }
  size_t function(std::vector<size_t> Statics, bool Template = false) {
    EmissionFunction F;
    F.Statics = std::move(Statics);
    F.IsTemplateInstance = Template;
    TU.Emission.Functions.push_back(F);
    return TU.Emission.Functions.size() - 1;
  }
  EmissionFunction &fn(size_t I) { return TU.Emission.Functions[I]; }
  static EmissionEvent declare(size_t V) {
    return {EmissionEvent::Kind::Variable, V};
  }
  static EmissionEvent complete(size_t F) {
    return {EmissionEvent::Kind::Function, F};
  }
  static EmissionEvent instantiate(size_t F) {
    return {EmissionEvent::Kind::Instantiate, F};
  }

  std::vector<std::string> order() {
    std::vector<std::string> Names;
    UnitLayout L(TU);
    for (size_t V : L.emissionOrder())
      Names.push_back(TU.Vars[V].Name);
    return Names;
  }

  TranslationUnitFacts TU;
};

using Names = std::vector<std::string>;

TEST(LayoutTest, EachVariableAtTheNextMultipleOfItsAlignment) {
  UnitBuilder B;
  size_t C = B.var("c", 3, 1), D = B.var("d", 16, 8), S = B.var("s", 10, 2),
         F = B.var("f4", 16, 16);
  B.TU.Emission.TopLevel = {B.declare(C), B.declare(D), B.declare(S),
                            B.declare(F)};
  B.kernel("k", {F, S, D, C}); // reach order does not matter
  KernelLayout L = UnitLayout(B.TU).layout(0);
  ASSERT_EQ(L.Total, 64u); // 3 -> 8+16=24 -> 34 -> 48+16
  ASSERT_EQ(L.Placed.size(), 4u);
  EXPECT_EQ(L.Placed[0].Var, C);
  EXPECT_EQ(L.Placed[1].Offset, 8u);
  EXPECT_EQ(L.Placed[2].Offset, 24u);
  EXPECT_EQ(L.Placed[3].Offset, 48u);
  EXPECT_FALSE(L.RoundedTo);
}

TEST(LayoutTest, TotalIsNotRoundedWithoutExternArrays) {
  UnitBuilder B;
  size_t A = B.var("a", 5, 1);
  B.TU.Emission.TopLevel = {B.declare(A)};
  B.kernel("k", {A});
  EXPECT_EQ(UnitLayout(B.TU).layout(0).Total, 5u);
}

TEST(LayoutTest, OwnVariablesBeforeSharedOnes) {
  UnitBuilder B;
  size_t H = B.var("helper", 3, 1), Own1 = B.var("own1", 16, 8),
         Own2 = B.var("own2", 4, 4);
  B.TU.Emission.TopLevel = {B.declare(H), B.declare(Own1), B.declare(Own2)};
  B.kernel("k1", {H, Own1});
  B.kernel("k2", {H, Own2});
  UnitLayout L(B.TU);
  KernelLayout K1 = L.layout(0);
  EXPECT_EQ(K1.Total, 19u); // own1 @0, helper @16
  EXPECT_EQ(K1.Placed[0].Var, Own1);
  EXPECT_TRUE(K1.Placed[1].SharedWithOtherKernels);
  EXPECT_TRUE(K1.Placed[1].AtModuleScope);
  EXPECT_EQ(L.layout(1).Total, 7u); // own2 @0, helper @4
}

TEST(LayoutTest, OutOfLineHelperStorageIsPlacedLast) {
  UnitBuilder B;
  size_t H = B.var("h", 8, 8), C = B.var("c", 3, 1);
  B.TU.Vars[H].ReferencedOutOfLine = true;
  B.TU.Emission.TopLevel = {B.declare(H), B.declare(C)};
  B.kernel("k", {H, C});
  KernelLayout L = UnitLayout(B.TU).layout(0);
  EXPECT_EQ(L.Total, 16u); // c @0, h @8
  EXPECT_EQ(L.Placed[0].Var, C);
}

TEST(LayoutTest, ExternArrayRoundsEveryNonzeroKernel) {
  UnitBuilder B;
  size_t A = B.var("a", 12, 4), Bv = B.var("b", 5, 1),
         Dyn = B.dynamicVar("dyn", 8);
  B.TU.Emission.TopLevel = {B.declare(A), B.declare(Bv)};
  B.kernel("uses_dyn", {A, Dyn});
  B.kernel("no_dyn", {Bv});
  B.kernel("only_dyn", {Dyn});
  UnitLayout L(B.TU);
  EXPECT_EQ(L.layout(0).Total, 16u);
  EXPECT_EQ(L.layout(0).End, 12u);
  EXPECT_EQ(L.layout(0).RoundedTo, 16u);
  EXPECT_TRUE(L.layout(0).DynamicDeclared);
  EXPECT_EQ(L.layout(1).Total, 16u)
      << "even a kernel that does not use the extern array";
  EXPECT_EQ(L.layout(2).Total, 0u) << "zero stays zero";
}

TEST(LayoutTest, ExternRoundingUsesTheLargestAlignment) {
  UnitBuilder B;
  size_t A = B.var("a", 5, 1), D1 = B.dynamicVar("d1", 64),
         D2 = B.dynamicVar("d2", 256);
  B.TU.Emission.TopLevel = {B.declare(A)};
  B.kernel("k1", {A, D1});
  B.kernel("k2", {D2});
  EXPECT_EQ(UnitLayout(B.TU).layout(0).Total, 256u);
}

TEST(LayoutTest, UnreachedExternArrayChangesNothing) {
  UnitBuilder B;
  size_t A = B.var("a", 5, 1);
  B.dynamicVar("unused", 16);
  B.TU.Emission.TopLevel = {B.declare(A)};
  B.kernel("k", {A});
  EXPECT_EQ(UnitLayout(B.TU).layout(0).Total, 5u);
}

TEST(LayoutTest, OverflowIsUnknownNotWrapped) {
  UnitBuilder B;
  const uint64_t Max = std::numeric_limits<uint64_t>::max();
  size_t A = B.var("a", Max - 4, 1), C = B.var("c", 16, 8);
  B.TU.Emission.TopLevel = {B.declare(A), B.declare(C)};
  B.kernel("k", {A, C});
  KernelLayout L = UnitLayout(B.TU).layout(0);
  EXPECT_FALSE(L.Total.has_value());
  EXPECT_NE(L.UnknownReason.find("overflows"), std::string::npos);
}

TEST(LayoutTest, UnknownSizeMakesTheTotalUnknown) {
  UnitBuilder B;
  size_t A = B.var("a", 8, 4);
  B.TU.Vars[A].Bytes.reset();
  B.TU.Vars[A].UnknownReason = {ReasonKind::ElementTypeIncomplete, {"S"}};
  B.TU.Emission.TopLevel = {B.declare(A)};
  B.kernel("k", {A});
  KernelLayout L = UnitLayout(B.TU).layout(0);
  EXPECT_FALSE(L.Total);
  // The model words the matchers' kind with its argument.
  EXPECT_NE(L.UnknownReason.find("the element type 'S' is incomplete"),
            std::string::npos)
      << L.UnknownReason;
}

TEST(EmissionOrderTest, FunctionStaticsAtCompletionGlobalsAtDeclaration) {
  UnitBuilder B;
  size_t G = B.var("g", 1, 1), H = B.var("h", 1, 1), K = B.var("k", 1, 1);
  size_t Helper = B.function({H}), Kernel = B.function({K});
  B.TU.Emission.TopLevel = {B.complete(Helper), B.declare(G),
                            B.complete(Kernel)};
  EXPECT_EQ(B.order(), (Names{"h", "g", "k"}));
}

TEST(EmissionOrderTest, TemplatesAfterEveryNonTemplateInListOrder) {
  UnitBuilder B;
  size_t T1 = B.var("t1", 1, 1), T2 = B.var("t2", 1, 1),
         P = B.var("plain", 1, 1);
  size_t F1 = B.function({T1}, true), F2 = B.function({T2}, true),
         Plain = B.function({P});
  // A plain function that lists t2 then t1, defined before another plain
  // function.
  size_t User = B.function({});
  B.fn(User).Body = {B.instantiate(F2), B.instantiate(F1)};
  B.TU.Emission.TopLevel = {B.complete(User), B.complete(Plain)};
  EXPECT_EQ(B.order(), (Names{"plain", "t2", "t1"}));
}

TEST(EmissionOrderTest, NewSpecializationsInstantiateDepthFirstListedOnesWait) {
  UnitBuilder B;
  size_t VA = B.var("a", 1, 1), VB = B.var("b", 1, 1), VC = B.var("c", 1, 1);
  size_t A = B.function({VA}, true), Bf = B.function({VB}, true),
         C = B.function({VC}, true);
  // a's body references b (new: instantiated at once) and c (already listed:
  // waits).
  B.fn(A).Body = {B.instantiate(Bf), B.instantiate(C)};
  size_t Host = B.function({});
  B.fn(Host).Body = {B.instantiate(A), B.instantiate(C)};
  B.TU.Emission.TopLevel = {B.complete(Host)};
  EXPECT_EQ(B.order(), (Names{"b", "a", "c"}));
}

TEST(EmissionOrderTest, AutoReturnTemplatesInstantiateWhereUsed) {
  UnitBuilder B;
  size_t VT = B.var("auto_t", 1, 1), VL = B.var("later", 1, 1);
  size_t T = B.function({VT}, true);
  B.fn(T).ReturnsAuto = true;
  size_t User = B.function({}), Later = B.function({VL});
  B.fn(User).Body = {B.instantiate(T)};
  B.TU.Emission.TopLevel = {B.complete(User), B.complete(Later)};
  EXPECT_EQ(B.order(), (Names{"auto_t", "later"}));
}

TEST(EmissionOrderTest, FunctionsWithLambdasAreDeferred) {
  UnitBuilder B;
  size_t VK = B.var("kernel_own", 1, 1), VT = B.var("template_own", 1, 1),
         VL = B.var("lambda_own", 1, 1), VN = B.var("nested_lambda_own", 1, 1);
  size_t Lambda = B.function({VL}), Inner = B.function({VN});
  B.fn(Lambda).Nested = B.fn(Inner).Nested = true;
  B.fn(Inner).InsideLambda = true;
  B.fn(Lambda).Body = {B.complete(Inner)};
  B.fn(Lambda).ContainsLambda = true;
  size_t Kernel = B.function({VK});
  B.fn(Kernel).ContainsLambda = true;
  B.fn(Kernel).Body = {B.complete(Lambda)};
  size_t Tmpl = B.function({VT}, true);
  B.fn(Kernel).Body.push_back(B.instantiate(Tmpl));
  B.TU.Emission.TopLevel = {B.complete(Kernel)};
  // G2 (template), then G3a (nested lambdas, post-order), then G3b (the
  // kernel).
  EXPECT_EQ(B.order(), (Names{"template_own", "nested_lambda_own", "lambda_own",
                              "kernel_own"}));
}

TEST(EmissionOrderTest, LambdaDirectlyInAPlainFunctionStaysInPlace) {
  UnitBuilder B;
  size_t VL = B.var("lam", 1, 1), VF = B.var("after", 1, 1);
  size_t Lambda = B.function({VL});
  B.fn(Lambda).Nested = true;
  size_t F = B.function({}), After = B.function({VF});
  B.fn(F).Body = {B.complete(Lambda)};
  B.fn(F).ContainsLambda =
      true; // F itself moves (no statics), its lambda does not
  B.TU.Emission.TopLevel = {B.complete(F), B.complete(After)};
  EXPECT_EQ(B.order(), (Names{"lam", "after"}));
}

TEST(EmissionOrderTest, NamespacesLastNestedBeforeParent) {
  UnitBuilder B;
  // namespace A { a1 } ; B { b1; C { c1 } b2 } ; A { a2 } ; global g
  size_t A1 = B.var("a1", 1, 1, {0}), B1 = B.var("b1", 1, 1, {1}),
         C1 = B.var("c1", 1, 1, {1, 2}), B2 = B.var("b2", 1, 1, {1}),
         A2 = B.var("a2", 1, 1, {0}), G = B.var("g", 1, 1);
  (void)A1, (void)B1, (void)C1, (void)B2, (void)A2;
  B.TU.Emission.TopLevel = {B.declare(G)};
  EXPECT_EQ(B.order(), (Names{"g", "a1", "a2", "c1", "b1", "b2"}));
}

TEST(EmissionOrderTest, RecursiveTemplatesTerminate) {
  UnitBuilder B;
  size_t V = B.var("r", 1, 1);
  size_t R = B.function({V}, true);
  B.fn(R).Body = {B.instantiate(R)};
  size_t Host = B.function({});
  B.fn(Host).Body = {B.instantiate(R)};
  B.TU.Emission.TopLevel = {B.complete(Host)};
  EXPECT_EQ(B.order(), (Names{"r"}));
}

TEST(EmissionPruningTest, LeavesOutOnlyFunctionsThatCannotPlaceAVariable) {
  UnitBuilder B;
  const size_t S = B.var("s", 4, 4), T = B.var("t", 4, 4);
  const size_t Leaf = B.function({}, true);      // names nothing
  const size_t Owner = B.function({S}, true);    // has a static
  const size_t Caller = B.function({}, true);    // reaches Owner
  const size_t Idle = B.function({}, true);      // reaches only Leaf
  const size_t Declares = B.function({});        // a variable in its body
  B.fn(Caller).Body = {B.instantiate(Leaf), B.instantiate(Owner)};
  B.fn(Idle).Body = {B.instantiate(Leaf), B.complete(Idle),
                     B.instantiate(99)};
  B.fn(Declares).Body = {B.declare(T)};
  B.TU.Emission.TopLevel = {B.instantiate(Idle), B.instantiate(Caller),
                            B.complete(Declares), B.instantiate(42)};
  const Names Before = B.order();
  pruneEmission(B.TU.Emission);
  const EmissionProgram &P = B.TU.Emission;
  ASSERT_EQ(P.Functions.size(), 3u);
  EXPECT_EQ(P.Functions[0].Statics, std::vector<size_t>{S});
  // Caller is renumbered 1 and names only Owner, now 0.
  ASSERT_EQ(P.Functions[1].Body.size(), 1u);
  EXPECT_EQ(P.Functions[1].Body[0].Index, 0u);
  EXPECT_EQ(P.Functions[2].Body.size(), 1u);
  ASSERT_EQ(P.TopLevel.size(), 2u);
  EXPECT_EQ(P.TopLevel[0].Index, 1u);
  EXPECT_EQ(P.TopLevel[1].Index, 2u);
  EXPECT_EQ(B.order(), Before);
  EXPECT_EQ(Before, (Names{"t", "s"}));
}

/// Programs drawn at random (references backwards and forwards, recursion,
/// indices out of range, every flag) give the same order pruned or not.
TEST(EmissionPruningTest, RandomProgramsKeepTheirOrder) {
  uint64_t Seed = 0x9e3779b97f4a7c15ull;
  const auto Next = [&](uint64_t Below) {
    Seed = Seed * 6364136223846793005ull + 1442695040888963407ull;
    return (Seed >> 33) % Below;
  };
  size_t Pruned = 0;
  for (int Round = 0; Round < 3000; ++Round) {
    UnitBuilder B;
    const size_t Vars = 1 + Next(6), Functions = Next(14);
    for (size_t V = 0; V < Vars; ++V)
      B.var("v" + std::to_string(V), 4, 4,
            Next(3) ? std::vector<unsigned>{} : std::vector<unsigned>{
                                                    unsigned(Next(3))});
    const auto Event = [&]() -> EmissionEvent {
      switch (Next(5)) {
      case 0:
        return UnitBuilder::declare(Next(Vars + 1));
      case 1:
        return UnitBuilder::complete(Next(Functions + 2));
      default:
        return UnitBuilder::instantiate(Next(Functions + 2));
      }
    };
    for (size_t F = 0; F < Functions; ++F) {
      std::vector<size_t> Statics;
      if (Next(4) == 0)
        Statics.push_back(Next(Vars));
      const size_t I = B.function(Statics, Next(3) != 0);
      EmissionFunction &Fn = B.fn(I);
      Fn.ReturnsAuto = Next(5) == 0;
      Fn.Nested = Next(4) == 0;
      Fn.ContainsLambda = Next(4) == 0;
      Fn.InsideLambda = Next(5) == 0;
      for (size_t E = Next(4); E > 0; --E)
        Fn.Body.push_back(Event());
    }
    for (size_t E = 1 + Next(6); E > 0; --E)
      B.TU.Emission.TopLevel.push_back(Event());
    const Names Before = B.order();
    const size_t Had = B.TU.Emission.Functions.size();
    pruneEmission(B.TU.Emission);
    Pruned += Had - B.TU.Emission.Functions.size();
    ASSERT_EQ(B.order(), Before) << "round " << Round;
  }
  // The rounds did leave functions out.
  EXPECT_GT(Pruned, 1000u);
}

} // namespace
} // namespace tilefit
