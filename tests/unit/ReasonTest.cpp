//===- ReasonTest.cpp - Reasons as kinds with arguments, worded by the model
//===//
#include "tilefit/model/Reason.h"
#include "tilefit/model/FactsJson.h"

#include <gtest/gtest.h>

#include <set>

namespace tilefit {
namespace {

std::vector<ReasonKind> everyKind() {
  return {
#define TILEFIT_REASON(Enum, Id, Text) ReasonKind::Enum,
#include "tilefit/model/Reasons.def"
  };
}

TEST(ReasonTest, EveryKindHasItsOwnIdAndWords) {
  std::set<std::string_view> Ids;
  for (ReasonKind K : everyKind()) {
    const std::string_view Id = reasonId(K);
    EXPECT_FALSE(Id.empty());
    EXPECT_TRUE(Ids.insert(Id).second) << "two kinds named " << Id;
    EXPECT_EQ(reasonKind(Id), K) << Id;
    EXPECT_FALSE(describe(Reason(K)).empty()) << Id;
  }
  EXPECT_EQ(reasonId(ReasonKind::None), "");
  EXPECT_FALSE(reasonKind("no-such-reason").has_value());
  EXPECT_EQ(describe(Reason()), "");
}

TEST(ReasonTest, WordsTakeTheArgumentsAndTheReasonBeneath) {
  EXPECT_EQ(describe({ReasonKind::ElementTypeIncomplete, {"struct S"}}),
            "the element type 'struct S' is incomplete");
  EXPECT_EQ(describe({ReasonKind::ModuleIdUnderArch, {"k.cu:4", "k.cu:2"}}),
            "nvcc names the unit after its first external definition as the "
            "host side sees it; the one tilefit sees (k.cu:4) is under the "
            "`__CUDA_ARCH__` conditional at k.cu:2, which the host side may "
            "not see");
  const Reason Launch = Reason::resting(ReasonKind::DynamicSizeNotConstant,
                                        {ReasonKind::ValueParameter, {"n"}});
  EXPECT_EQ(describe(Launch), "the dynamic shared memory size is not a "
                              "compile-time constant: it depends on 'n', a "
                              "function parameter");
  // A missing argument or cause is said to be missing, never read past.
  EXPECT_EQ(describe(Reason(ReasonKind::ValueNegative)), "it is negative (?)");
  EXPECT_EQ(describe(Reason(ReasonKind::ColumnsNotConstant)),
            "the column count is not a compile-time constant: unknown");
}

TEST(ReasonTest, FactsKeepTheKindNotTheWords) {
  TranslationUnitFacts F;
  SharedVar V;
  V.Name = "tile";
  V.UnknownReason = {ReasonKind::ElementTypeIncomplete, {"S"}};
  F.Vars.push_back(V);
  const std::string Json = factsToJson(F);
  EXPECT_NE(Json.find("\"element-type-incomplete\""), std::string::npos)
      << Json;
  EXPECT_EQ(Json.find("is incomplete"), std::string::npos) << Json;
  auto Back = factsFromJson(Json);
  ASSERT_TRUE(Back.has_value());
  EXPECT_EQ(Back->Vars.at(0).UnknownReason, V.UnknownReason);
  // A kind this build does not know makes the entry a miss, not a reason of
  // another kind.
  std::string Foreign = Json;
  Foreign.replace(Foreign.find("element-type-incomplete"),
                  std::string("element-type-incomplete").size(),
                  "some-future-reason");
  EXPECT_FALSE(factsFromJson(Foreign).has_value());
}

} // namespace
} // namespace tilefit
