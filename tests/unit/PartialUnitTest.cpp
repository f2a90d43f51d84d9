//===- PartialUnitTest.cpp - Units with parse errors, on hand-built facts -===//
//
// What the model and the reporters make of a unit Clang parsed with errors: the
// kernels an error touches get no figure and a reason naming the error; the
// others keep theirs unless an error may hide a kernel whose sharing of their
// variables changes their layout; the unit is "partial" in every format, and
// the run's failures are listed with their first errors.
//
//===----------------------------------------------------------------------===//
#include "tilefit/model/Analysis.h"
#include "tilefit/model/Checks.h"
#include "tilefit/model/Layout.h"
#include "tilefit/model/ReportJson.h"
#include "tilefit/reporters/MarkdownReporter.h"
#include "tilefit/reporters/SarifReporter.h"
#include "tilefit/reporters/Summary.h"
#include "tilefit/reporters/TextReporter.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sstream>

namespace tilefit {
namespace {

class NoLines : public SourceLines {
public:
  std::optional<std::string> line(const std::string &, unsigned) override {
    return std::nullopt;
  }
};

/// A unit built by hand: variables, kernels reaching them, errors.
struct UnitBuilder {
  size_t var(const std::string &Name, uint64_t Bytes, uint64_t Align,
             bool KernelLocal = true) {
    SharedVar V;
    V.Name = V.QualifiedName = Name;
    V.Loc = {"k.cu", static_cast<unsigned>(10 + TU.Vars.size()), 3};
    V.Bytes = Bytes;
    V.Align = Align;
    V.KernelLocal = KernelLocal;
    V.Emission.DeclOrder = TU.Vars.size();
    TU.Vars.push_back(V);
    TU.Emission.TopLevel.push_back(
        {EmissionEvent::Kind::Variable, TU.Vars.size() - 1});
    return TU.Vars.size() - 1;
  }
  size_t kernel(const std::string &Name, std::vector<size_t> Reached) {
    KernelFacts K;
    K.Name = K.Mangled = Name;
    K.Loc = {"k.cu", static_cast<unsigned>(40 + TU.Kernels.size()), 17};
    K.Reached = std::move(Reached);
    TU.Kernels.push_back(K);
    return TU.Kernels.size() - 1;
  }
  size_t error(const std::string &Message, unsigned Line) {
    Diagnostic D;
    D.Level = Severity::Error;
    D.Check = std::string(checkInfo(CheckId::ClangError).Name);
    D.Message = Message;
    D.Loc = {"/src/k.cu", Line, 5};
    TU.Diagnostics.push_back(D);
    TU.Partial = true;
    return TU.Diagnostics.size() - 1;
  }
  Report analyse() {
    Report R;
    analyzeUnit(TU, CapacityDatabase(), AnalysisOptions(), R);
    finalizeReport(R);
    return R;
  }
  const KernelReport &kernelIn(const Report &R, const std::string &Name) {
    for (const KernelReport &K : R.Kernels)
      if (K.Name == Name)
        return K;
    ADD_FAILURE() << "no kernel " << Name;
    return R.Kernels.front();
  }

  UnitBuilder() {
    TU.File = "/src/k.cu";
    TU.Arch = TU.ParsedAs = "sm_90";
  }
  TranslationUnitFacts TU;
};

TEST(PartialUnitTest, AKernelAnErrorTouchesHasNoFigureAndTheErrorAsItsReason) {
  UnitBuilder B;
  size_t A = B.var("a", 64, 4), C = B.var("c", 32, 4);
  B.kernel("broken", {A});
  B.kernel("intact", {C});
  size_t E = B.error("use of undeclared identifier 'bias'", 12);
  B.TU.Kernels[0].Error = ErrorTouch{ErrorTouch::Kind::InItsCode, E};
  Report R = B.analyse();
  const KernelReport &Broken = B.kernelIn(R, "broken");
  EXPECT_FALSE(Broken.StaticBytes.has_value());
  EXPECT_NE(Broken.UnknownReason.find(
                "k.cu:12:5: use of undeclared identifier 'bias'"),
            std::string::npos)
      << Broken.UnknownReason;
  EXPECT_FALSE(Broken.UnitHasErrors);
  const KernelReport &Intact = B.kernelIn(R, "intact");
  ASSERT_TRUE(Intact.StaticBytes.has_value());
  EXPECT_EQ(*Intact.StaticBytes, 32u);
  EXPECT_TRUE(Intact.UnitHasErrors);
  ASSERT_EQ(R.Units.size(), 1u);
  EXPECT_FALSE(R.Units[0].Ok);
  EXPECT_TRUE(R.Units[0].Partial);
}

TEST(PartialUnitTest, EachKindOfTouchHasItsOwnReason) {
  for (auto [Kind, Words] :
       {std::pair{ErrorTouch::Kind::UnbuiltCode, "could not build"},
        std::pair{ErrorTouch::Kind::NoBody, "did not instantiate"}}) {
    UnitBuilder B;
    B.kernel("k", {B.var("v", 8, 8)});
    B.TU.Kernels[0].Error = ErrorTouch{Kind, B.error("expected ';'", 3)};
    Report R = B.analyse();
    EXPECT_FALSE(R.Kernels[0].StaticBytes.has_value());
    EXPECT_NE(R.Kernels[0].UnknownReason.find(Words), std::string::npos)
        << R.Kernels[0].UnknownReason;
    EXPECT_NE(R.Kernels[0].UnknownReason.find("expected ';'"),
              std::string::npos);
  }
}

TEST(PartialUnitTest, SharingAnErrorMayHideChangesTheLayout) {
  // `own` (3 bytes) is the kernel's; `buf` (16 bytes, aligned 8) is a device
  // function's static. Own first then buf at 8: 24 bytes; buf first: 19. An
  // error may hide a kernel that reaches buf: the figure is one of the two, so
  // it is unknown.
  UnitBuilder B;
  size_t Buf = B.var("helper::buf", 16, 8, /*KernelLocal=*/false);
  size_t Own = B.var("own", 3, 1);
  B.kernel("mixed", {Buf, Own});
  B.error("no member named 'scale' in 'Plain'", 30);
  UnitLayout L(B.TU);
  std::optional<size_t> Culprit;
  auto Totals = L.possibleTotals(0, Culprit);
  ASSERT_TRUE(Totals.has_value());
  EXPECT_EQ(*Totals, (std::vector<uint64_t>{19, 24}));
  ASSERT_TRUE(Culprit.has_value());
  EXPECT_EQ(*Culprit, Buf);
  Report R = B.analyse();
  EXPECT_FALSE(R.Kernels[0].StaticBytes.has_value());
  EXPECT_NE(
      R.Kernels[0].UnknownReason.find("whether one also uses 'helper::buf'"),
      std::string::npos)
      << R.Kernels[0].UnknownReason;
  EXPECT_NE(R.Kernels[0].UnknownReason.find("19 to 24 bytes"),
            std::string::npos);
}

TEST(PartialUnitTest, ALayoutTheSameEitherWayKeepsItsFigure) {
  // Only a sharable static, or sharable and own of the same alignment: every
  // combination gives the same total.
  UnitBuilder B;
  size_t Buf = B.var("helper::buf", 16, 8, /*KernelLocal=*/false);
  size_t Own = B.var("own", 8, 8);
  B.kernel("only_shared", {Buf});
  B.kernel("same_alignment", {Buf, Own});
  B.error("expected expression", 30);
  Report R = B.analyse();
  for (const KernelReport &K : R.Kernels) {
    ASSERT_TRUE(K.StaticBytes.has_value()) << K.Name << ": " << K.UnknownReason;
    EXPECT_TRUE(K.UnitHasErrors);
  }
  EXPECT_EQ(*B.kernelIn(R, "only_shared").StaticBytes, 16u);
  EXPECT_EQ(*B.kernelIn(R, "same_alignment").StaticBytes, 24u);
}

TEST(PartialUnitTest, KernelLocalVariablesAndKnownSharingAreNotInDoubt) {
  UnitBuilder B;
  size_t Buf = B.var("helper::buf", 16, 8, /*KernelLocal=*/false);
  size_t Own = B.var("own", 3, 1);
  size_t Other = B.var("other_own", 4, 4);
  B.kernel("mixed", {Buf, Own});
  B.kernel("also_calls_helper",
           {Buf, Other}); // buf is known to be shared already
  B.error("expected expression", 30);
  UnitLayout L(B.TU);
  std::optional<size_t> Culprit;
  auto Totals = L.possibleTotals(0, Culprit);
  ASSERT_TRUE(Totals.has_value());
  EXPECT_EQ(Totals->size(), 1u);
  EXPECT_FALSE(Culprit.has_value());
}

TEST(PartialUnitTest, AnExternArrayNoKernelIsSeenToReachMayRoundTheTotal) {
  UnitBuilder B;
  size_t V = B.var("v", 20, 4);
  size_t Dyn = B.var("smem", 0, 16);
  B.TU.Vars[Dyn].IsDynamic = true;
  B.TU.Vars[Dyn].Bytes.reset();
  B.kernel("k", {V});
  B.error("expected ';'", 3);
  Report R = B.analyse();
  EXPECT_FALSE(R.Kernels[0].StaticBytes.has_value());
  EXPECT_NE(R.Kernels[0].UnknownReason.find("extern __shared__"),
            std::string::npos)
      << R.Kernels[0].UnknownReason;
}

TEST(PartialUnitTest, AllowedParseErrorsDoNotDecideTheExitStatus) {
  UnitBuilder B;
  B.kernel("k", {B.var("v", 8, 8)});
  B.error("expected ';'", 3);
  Report R = B.analyse();
  ASSERT_TRUE(worstSeverity(R).has_value());
  EXPECT_EQ(*worstSeverity(R), Severity::Error);
  R.Units[0].ErrorsAllowed = true;
  EXPECT_FALSE(worstSeverity(R).has_value());
}

/// A run over a partial unit and a good one, for the reporters.
Report twoUnits() {
  UnitBuilder Bad;
  Bad.kernel("broken", {Bad.var("a", 64, 4)});
  Bad.kernel("intact", {Bad.var("c", 32, 4)});
  Bad.TU.Kernels[0].Error =
      ErrorTouch{ErrorTouch::Kind::InItsCode,
                 Bad.error("use of undeclared identifier 'bias'", 12)};
  Bad.TU.Fixups.push_back({{"/src/k.cu", 7, 3}, "shared-constructor"});
  Report R;
  analyzeUnit(Bad.TU, CapacityDatabase(), AnalysisOptions(), R);
  UnitBuilder Good;
  Good.TU.File = "/src/good.cu";
  Good.kernel("good", {Good.var("g", 16, 4)});
  analyzeUnit(Good.TU, CapacityDatabase(), AnalysisOptions(), R);
  finalizeReport(R);
  return R;
}

TEST(PartialUnitTest,
     TheTextReportEndsWithTheUnitsThatFailedAndTheirFirstErrors) {
  Report R = twoUnits();
  NoLines Lines;
  std::ostringstream OS;
  renderText(R, Lines, OS);
  const std::string Out = OS.str();
  EXPECT_NE(Out.find("tilefit: 1 of 2 units failed to parse:"),
            std::string::npos)
      << Out;
  EXPECT_NE(Out.find("k.cu (k.cu:12:5: use of undeclared identifier 'bias'), "
                     "kernels its errors "
                     "do not touch analysed"),
            std::string::npos)
      << Out;
  EXPECT_EQ(Out.find("no kernels found"), std::string::npos);
  // The unknown figure is a `?` with a footnote saying why.
  EXPECT_NE(Out.find("? [1]"), std::string::npos) << Out;
  EXPECT_NE(
      Out.find(
          "[1] the translation unit has an error in code this kernel uses"),
      std::string::npos)
      << Out;
}

TEST(PartialUnitTest, WithNoKernelTheFailuresReplaceNoKernelsFound) {
  UnitBuilder B;
  B.error("expected ';'", 3);
  Report R = B.analyse();
  NoLines Lines;
  std::ostringstream OS;
  renderText(R, Lines, OS);
  EXPECT_EQ(OS.str().find("no kernels found"), std::string::npos) << OS.str();
  EXPECT_NE(OS.str().find("tilefit: 1 of 1 unit failed to parse:"),
            std::string::npos)
      << OS.str();
}

TEST(PartialUnitTest, JsonSaysPartialAndReadsBack) {
  Report R = twoUnits();
  std::ostringstream OS;
  renderJson(R, ToolInfo(), OS);
  nlohmann::json J = nlohmann::json::parse(OS.str());
  std::map<std::string, nlohmann::json> Units;
  for (const auto &U : J["translation_units"])
    Units[U["file"]] = U;
  EXPECT_EQ(Units["/src/k.cu"]["status"], "partial");
  EXPECT_EQ(Units["/src/good.cu"]["status"], "ok");
  ASSERT_EQ(Units["/src/k.cu"]["source_fixups"].size(), 1u);
  EXPECT_EQ(Units["/src/k.cu"]["source_fixups"][0]["rule"],
            "shared-constructor");
  for (const auto &K : J["kernels"]) {
    if (K["name"] == "broken") {
      EXPECT_TRUE(K["static_smem_bytes"].is_null());
      EXPECT_NE(K["unknown_reason"].get<std::string>().find("bias"),
                std::string::npos);
    }
    if (K["name"] == "intact") {
      EXPECT_EQ(K["unit_has_errors"], true);
    }
  }
  auto Back = readJsonReport(OS.str(), "r.json");
  ASSERT_TRUE(static_cast<bool>(Back)) << Back.error();
  std::ostringstream Again;
  renderJson(*Back, ToolInfo(), Again);
  EXPECT_EQ(nlohmann::json::parse(Again.str()), J);
}

TEST(PartialUnitTest, AnUnknownStatusIsABadReport) {
  std::ostringstream OS;
  renderJson(twoUnits(), ToolInfo(), OS);
  nlohmann::json J = nlohmann::json::parse(OS.str());
  J["translation_units"][0]["status"] = "fine";
  auto Back = readJsonReport(J.dump(), "r.json");
  ASSERT_FALSE(static_cast<bool>(Back));
  EXPECT_NE(Back.error().find("status"), std::string::npos) << Back.error();
}

TEST(PartialUnitTest, SarifAndMarkdownCarryTheFailures) {
  Report R = twoUnits();
  std::ostringstream Sarif;
  SarifOptions Opts;
  NoLines Lines;
  renderSarif(R, ToolInfo(), Opts, Lines, Sarif);
  nlohmann::json S = nlohmann::json::parse(Sarif.str());
  const auto &Inv = S["runs"][0]["invocations"][0];
  EXPECT_EQ(Inv["executionSuccessful"], false);
  ASSERT_TRUE(Inv.contains("toolExecutionNotifications"));
  EXPECT_NE(Inv["toolExecutionNotifications"][0]["message"]["text"]
                .get<std::string>()
                .find("1 of 2 units failed to parse"),
            std::string::npos);
  EXPECT_NE(Inv["toolExecutionNotifications"][1]["message"]["text"]
                .get<std::string>()
                .find("use of undeclared identifier 'bias'"),
            std::string::npos);
  std::ostringstream Md;
  renderMarkdown(R, "/src", Md);
  EXPECT_NE(Md.str().find("**1 of 2 units failed to parse:**"),
            std::string::npos)
      << Md.str();
  EXPECT_NE(
      Md.str().find("- k.cu (k.cu:12:5: use of undeclared identifier 'bias')"),
      std::string::npos)
      << Md.str();
}

} // namespace
} // namespace tilefit
