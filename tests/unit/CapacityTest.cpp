//===- CapacityTest.cpp - The capacity database and its loader ------------===//
#include "tilefit/model/Capacity.h"
#include "tilefit/model/Arch.h"

#include <gtest/gtest.h>

namespace tilefit {
namespace {

CapacityDatabase builtin() {
  auto DB = CapacityDatabase::load(std::string(TILEFIT_SOURCE_DIR) +
                                   "/data/capacity.json");
  EXPECT_TRUE(static_cast<bool>(DB)) << DB.error();
  return *DB;
}

std::string errorOf(const std::string &Json) {
  auto DB = CapacityDatabase::parse(Json, "test.json");
  EXPECT_FALSE(static_cast<bool>(DB)) << "accepted: " << Json;
  return DB ? "" : DB.error();
}

TEST(CapacityTest, BuiltinCoversEveryNvccArchitecture) {
  CapacityDatabase DB = builtin();
  for (const std::string &A : nvccRealArchs()) {
    const ArchCapacity *C = DB.lookup(A);
    ASSERT_NE(C, nullptr) << A;
    EXPECT_EQ(C->StaticMax, 49152u) << A;
  }
  for (const char *V : {"sm_90a", "sm_100a", "sm_100f", "sm_103a", "sm_110f",
                        "sm_120a", "sm_121f"})
    EXPECT_NE(DB.lookup(V), nullptr) << V;
}

TEST(CapacityTest, BuiltinFiguresFromTheReference) {
  CapacityDatabase DB = builtin();
  const ArchCapacity *H = DB.lookup("sm_90");
  EXPECT_EQ(H->SharedPerSm, 233472u);
  EXPECT_EQ(H->BlockOptinMax, 232448u);
  EXPECT_EQ(H->BlockDefaultMax, 49152u);
  EXPECT_EQ(H->ReservedPerBlock, 1024u);
  EXPECT_EQ(H->AllocGranularity, 128u);
  EXPECT_EQ(H->BlocksPerSm, 32u);
  EXPECT_EQ(H->CarveoutSteps.back(), 228u * 1024);
  const ArchCapacity *T = DB.lookup("sm_75");
  EXPECT_EQ(T->BlockOptinMax, 65536u);
  EXPECT_EQ(T->ReservedPerBlock, 0u);
  EXPECT_EQ(T->AllocGranularity, 256u);
  EXPECT_EQ(T->WarpsPerSm, 32u);
  const ArchCapacity *G = DB.lookup("sm_120");
  EXPECT_EQ(G->SharedPerSm, 102400u);
  EXPECT_EQ(G->BlockOptinMax, 101376u);
  EXPECT_EQ(G->BlocksPerSm, 24u);
  EXPECT_EQ(DB.lookup("sm_100")->TensorMemoryColumns, 512u);
  EXPECT_EQ(DB.lookup("sm_120")->TensorMemoryColumns, 0u);
}

TEST(CapacityTest, UndocumentedArchitectureHasUnknowns) {
  CapacityDatabase DB = builtin(); // lookup() points into it: keep it alive.
  const ArchCapacity *C = DB.lookup("sm_88");
  ASSERT_NE(C, nullptr);
  EXPECT_EQ(C->StaticMax, 49152u);
  EXPECT_FALSE(C->BlockOptinMax.has_value());
  EXPECT_FALSE(C->SharedPerSm.has_value());
}

TEST(CapacityTest, VariantsInheritAndFallBack) {
  CapacityDatabase DB = builtin();
  EXPECT_EQ(DB.lookup("sm_90a")->BlockOptinMax,
            DB.lookup("sm_90")->BlockOptinMax);
  EXPECT_EQ(DB.lookup("sm_90a")->Name, "sm_90a");
  // No entry for sm_89a: the base architecture's.
  ASSERT_NE(DB.lookup("sm_89a"), nullptr);
  EXPECT_EQ(DB.lookup("sm_89a")->Name, "sm_89");
  EXPECT_EQ(DB.lookup("sm_70"), nullptr);
  EXPECT_EQ(DB.lookup("nonsense"), nullptr);
}

TEST(CapacityTest, MergeOverridesFieldsAndPropagatesToVariants) {
  CapacityDatabase DB = builtin();
  auto Extra = CapacityDatabase::parse(R"({"architectures": {
      "sm_90": {"shared_memory": {"block_optin_max": 100000}},
      "sm_999": {"shared_memory": {"per_sm": 1000, "block_optin_max": 500}}}})",
                                       "extra.json");
  ASSERT_TRUE(static_cast<bool>(Extra)) << Extra.error();
  ASSERT_FALSE(DB.merge(*Extra).has_value());
  EXPECT_EQ(DB.lookup("sm_90")->BlockOptinMax, 100000u);
  EXPECT_EQ(DB.lookup("sm_90")->SharedPerSm, 233472u)
      << "fields not named are kept";
  EXPECT_EQ(DB.lookup("sm_90a")->BlockOptinMax, 100000u)
      << "sm_90a inherits sm_90";
  ASSERT_NE(DB.lookup("sm_999"), nullptr);
  EXPECT_EQ(DB.lookup("sm_999")->BlockOptinMax, 500u);
  EXPECT_EQ(DB.lookup("sm_999")->ComputeCapability, "99.9");
}

TEST(CapacityTest, ReplaceMode) {
  CapacityDatabase DB = builtin();
  auto Only = CapacityDatabase::parse(
      R"({"replace": true, "architectures": {"sm_80": {"shared_memory": {"static_max": 1}}}})",
      "only.json");
  ASSERT_TRUE(static_cast<bool>(Only));
  ASSERT_FALSE(DB.merge(*Only).has_value());
  EXPECT_EQ(DB.names(), std::vector<std::string>{"sm_80"});
  EXPECT_EQ(DB.lookup("sm_80")->StaticMax, 1u);
  EXPECT_FALSE(DB.lookup("sm_80")->BlockOptinMax.has_value());
}

TEST(CapacityTest, MalformedJsonNamesFileLineAndColumn) {
  std::string E =
      errorOf("{\n  \"architectures\": {\n    \"sm_90\": [1,,]\n  }\n}");
  EXPECT_NE(E.find("test.json:3:"), std::string::npos) << E;
  EXPECT_NE(E.find("not valid JSON"), std::string::npos) << E;
  EXPECT_NE(errorOf("").find("test.json:1:1"), std::string::npos);
}

TEST(CapacityTest, WrongTypesNameTheKey) {
  std::string E = errorOf(
      R"({"architectures": {"sm_90": {"shared_memory": {"per_sm": "big"}}}})");
  EXPECT_NE(E.find("architectures.sm_90.shared_memory.per_sm"),
            std::string::npos)
      << E;
  EXPECT_NE(E.find("a string"), std::string::npos) << E;
  E = errorOf(R"({"architectures": {"sm_90": {"threads": {"per_sm": -5}}}})");
  EXPECT_NE(E.find("architectures.sm_90.threads.per_sm"), std::string::npos)
      << E;
  EXPECT_NE(E.find("negative"), std::string::npos) << E;
  E = errorOf(
      R"({"architectures": {"sm_90": {"registers": {"per_sm": 1.5}}}})");
  EXPECT_NE(E.find("fractional"), std::string::npos) << E;
  E = errorOf(
      R"({"architectures": {"sm_90": {"shared_memory": {"optin_supported": 1}}}})");
  EXPECT_NE(E.find("optin_supported"), std::string::npos) << E;
  E = errorOf(R"({"architectures": []})");
  EXPECT_NE(E.find("architectures: expected an object"), std::string::npos)
      << E;
}

TEST(CapacityTest, UnknownKeysAreErrors) {
  EXPECT_NE(
      errorOf(
          R"({"architectures": {"sm_90": {"shared_memory": {"per_smm": 1}}}})")
          .find("architectures.sm_90.shared_memory.per_smm: unknown key"),
      std::string::npos);
  EXPECT_NE(errorOf(R"({"architectures": {"sm_90": {"colour": "red"}}})")
                .find("unknown key"),
            std::string::npos);
  EXPECT_NE(
      errorOf(R"({"architecture": {}})").find("architecture: unknown key"),
      std::string::npos);
  EXPECT_NE(errorOf(R"({"schema": "x", "architectures": {}})").find("schema"),
            std::string::npos);
}

TEST(CapacityTest, AbsurdAndInconsistentNumbers) {
  EXPECT_NE(
      errorOf(
          R"({"architectures": {"sm_90": {"shared_memory": {"per_sm": 99999999999999}}}})")
          .find("not a plausible"),
      std::string::npos);
  std::string E = errorOf(
      R"({"architectures": {"sm_90": {"shared_memory": {"per_sm": 1000, "block_optin_max": 2000}}}})");
  EXPECT_NE(
      E.find(
          "block_optin_max: 2000 is larger than shared_memory.per_sm (1000)"),
      std::string::npos)
      << E;
  EXPECT_NE(
      errorOf(
          R"({"architectures": {"sm_90": {"shared_memory": {"carveout_steps_kib": [8, 4]}}}})")
          .find("increasing"),
      std::string::npos);
}

TEST(CapacityTest, MissingKeysAndBadNames) {
  EXPECT_NE(errorOf(R"({})").find("architectures: missing"), std::string::npos);
  EXPECT_NE(errorOf(R"({"architectures": {"volta": {}}})")
                .find("not an architecture name"),
            std::string::npos);
  EXPECT_NE(errorOf(R"({"architectures": {"sm_90a": {"inherits": "sm_91"}}})")
                .find("no architecture named 'sm_91'"),
            std::string::npos);
  EXPECT_NE(
      errorOf(
          R"({"architectures": {"sm_90": {"inherits": "sm_90a"}, "sm_90a": {"inherits": "sm_90"}}})")
          .find("cycle"),
      std::string::npos);
}

TEST(CapacityTest, UnreadableFile) {
  auto DB = CapacityDatabase::load("/nonexistent/capacity.json");
  ASSERT_FALSE(static_cast<bool>(DB));
  EXPECT_NE(DB.error().find("/nonexistent/capacity.json"), std::string::npos);
}

} // namespace
} // namespace tilefit
