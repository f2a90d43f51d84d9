//===- ReporterTest.cpp - Text and JSON rendering of one report -----------===//
#include "tilefit/model/Analysis.h"
#include "tilefit/model/ReportJson.h"
#include "tilefit/reporters/MarkdownReporter.h"
#include "tilefit/reporters/SarifReporter.h"
#include "tilefit/reporters/TextReporter.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <regex>
#include <set>
#include <sstream>

namespace tilefit {
namespace {

/// Serves source lines from memory.
class FakeLines : public SourceLines {
public:
  std::optional<std::string> line(const std::string &File,
                                  unsigned Line) override {
    if (File == "k.cu" && Line == 3)
      return std::string("__global__ void\tbig(float *o) {");
    if (File == "k.cu" && Line == 4)
      return std::string("  __shared__ float tile[64][200];");
    return std::nullopt;
  }
};

/// A unit with one kernel over the static limit, analysed against a small
/// database.
Report sampleReport() {
  TranslationUnitFacts TU;
  TU.File = "k.cu";
  TU.Arch = TU.ParsedAs = "sm_90";
  SharedVar V;
  V.Name = "tile";
  V.QualifiedName = "big::tile";
  V.Function = "big";
  V.Loc = {"k.cu", 4, 20};
  V.Type = "float[64][200]";
  V.ElementType = V.CanonicalElementType = "float";
  V.Shape = {64, 200};
  V.ElementBytes = 4;
  V.Align = 4;
  V.Bytes = 51200;
  TU.Vars.push_back(V);
  TU.Emission.TopLevel = {{EmissionEvent::Kind::Variable, 0}};
  KernelFacts K;
  K.Name = "big";
  K.Mangled = "_Z3bigPf";
  K.Loc = {"k.cu", 3, 17};
  K.Reached = {0};
  TU.Kernels.push_back(K);

  auto DB =
      CapacityDatabase::parse(R"({"architectures": {"sm_90": {"shared_memory": {
      "per_sm": 233472, "block_default_max": 49152, "block_optin_max": 232448,
      "static_max": 49152, "reserved_per_block": 1024}}}})",
                              "db.json");
  EXPECT_TRUE(static_cast<bool>(DB));
  Report R;
  analyzeUnit(TU, *DB, AnalysisOptions(), R);
  finalizeReport(R);
  return R;
}

TEST(TextReporterTest, ClangStyleDiagnosticWithCaretAndNotes) {
  Report R = sampleReport();
  ASSERT_EQ(R.Diagnostics.size(), 1u);
  FakeLines Lines;
  std::ostringstream OS;
  renderDiagnostic(R.Diagnostics[0], Lines, OS);
  std::string Text = OS.str();
  EXPECT_NE(Text.find("k.cu:3:17: error: kernel 'big' uses 51200 bytes (50 "
                      "KiB) of static shared "
                      "memory on sm_90, more than the 49152 bytes (48 KiB) "
                      "ptxas accepts for "
                      "static allocations [tilefit-static-limit]\n"),
            std::string::npos)
      << Text;
  // The tab before `big` expands to column 16 (8-column tab stops), so the
  // caret sits under `b`.
  EXPECT_NE(Text.find("    3 | __global__ void big(float *o) {\n"
                      "      |                 ^\n"),
            std::string::npos)
      << Text;
  EXPECT_NE(Text.find("k.cu:4:20: note: 'tile' takes 51200 bytes (50 KiB) "
                      "(float[64][200]) at "
                      "offset 0; declare it 'extern __shared__'"),
            std::string::npos)
      << Text;
  EXPECT_NE(Text.find("    4 |   __shared__ float tile[64][200];\n"
                      "      | " +
                      std::string(19, ' ') + "^\n"),
            std::string::npos)
      << Text;
}

TEST(TextReporterTest, SummaryTableInHumanUnits) {
  Report R = sampleReport();
  std::ostringstream OS;
  renderSummary(R, OS);
  std::string Text = OS.str();
  EXPECT_TRUE(std::regex_search(Text, std::regex(R"(\nkernel +sm_90\n)")))
      << Text;
  // An error on that architecture is marked.
  EXPECT_TRUE(std::regex_search(Text, std::regex(R"(\nbig +50 KiB !\n)")))
      << Text;
  EXPECT_TRUE(std::regex_search(
      Text, std::regex(R"(\nblock max \(opt-in\) +227 KiB\n)")))
      << Text;
}

TEST(TextReporterTest, SummaryHasOneColumnPerArchitecture) {
  Report R;
  auto Kernel = [](std::string Name, std::string Arch, uint64_t Bytes) {
    KernelReport K;
    K.Name = Name;
    K.Arch = K.ParsedAs = Arch;
    K.StaticBytes = Bytes;
    return K;
  };
  R.Kernels = {Kernel("a", "sm_90", 4096), Kernel("a", "sm_80", 1024),
               Kernel("b", "sm_80", 12)};
  R.Kernels[0].Limit.BlockOptinMax = 232448;
  R.Kernels[0].ParsedAs = "sm_90"; // native
  KernelReport Dyn = Kernel("d", "sm_90", 0);
  Dyn.DynamicDeclared = true; // its extern __shared__ array is sized at launch
  Dyn.Launches = {{{"k.cu", 9, 3}, 8192, "", 256, 8192, "", {}},
                  {{"k.cu", 11, 3}, std::nullopt, "runtime", {}, {}, "", {}}};
  Dyn.WorstLaunch = 0;
  R.Kernels.push_back(Dyn);
  std::ostringstream OS;
  renderSummary(R, OS);
  std::string Text = OS.str();
  EXPECT_TRUE(
      std::regex_search(Text, std::regex(R"(\nkernel +sm_80 +sm_90\n)")))
      << Text;
  EXPECT_TRUE(std::regex_search(Text, std::regex(R"(\na +1 KiB +4 KiB\n)")))
      << Text;
  EXPECT_TRUE(std::regex_search(Text, std::regex(R"(\nb +12 B +-\n)"))) << Text;
  EXPECT_TRUE(
      std::regex_search(Text, std::regex(R"(\nd +- +0 B \+ 8 KiB \+ \?\n)")))
      << Text;
}

// Nine architectures made 400-character lines: neighbours that agree in every
// figure share a column; --summary=findings keeps the kernels something is said
// about; the legend says when registers do not limit the blocks-per-SM figure.
TEST(TextReporterTest, SummaryScales) {
  Report R;
  auto Kernel = [](std::string Name, std::string Arch, uint64_t Bytes,
                   uint64_t Max) {
    KernelReport K;
    K.Name = Name;
    K.Arch = K.ParsedAs = Arch;
    K.StaticBytes = Bytes;
    K.Limit.BlockOptinMax = Max;
    return K;
  };
  for (auto [Arch, Max] :
       std::vector<std::pair<const char *, uint64_t>>{{"sm_80", 166912},
                                                      {"sm_86", 101376},
                                                      {"sm_89", 101376},
                                                      {"sm_90", 232448},
                                                      {"sm_100", 232448},
                                                      {"sm_103", 232448},
                                                      {"sm_120", 101376}}) {
    R.Kernels.push_back(Kernel("plain", Arch, 1024, Max));
    KernelReport Big = Kernel("big", Arch, 40960, Max);
    if (std::string(Arch) == "sm_86" || std::string(Arch) == "sm_89" ||
        std::string(Arch) == "sm_120")
      Big.Worst = Severity::Warning;
    Big.Occupancy.BlocksPerSm = 2;
    R.Kernels.push_back(Big);
  }
  std::ostringstream OS;
  renderSummary(R, OS);
  std::string Text = OS.str();
  EXPECT_TRUE(std::regex_search(Text, std::regex(R"(
kernel +sm_80 +sm_86,sm_89 +sm_90\.\.sm_103 +sm_120
)"))) << Text;
  EXPECT_TRUE(std::regex_search(Text, std::regex(R"(
plain +1 KiB +1 KiB +1 KiB +1 KiB
)"))) << Text;
  EXPECT_TRUE(std::regex_search(Text, std::regex(R"(
big +40 KiB \(<=2/SM\) +40 KiB \(<=2/SM\) ~ +40 KiB \(<=2/SM\) +40 KiB \(<=2/SM\) ~
)"))) << Text;
  EXPECT_NE(
      Text.find(
          "sm_90..sm_103: architectures with the same figures, in one column"),
      std::string::npos)
      << Text;
  // Without registers the figure is shared memory's bound, and says so.
  EXPECT_NE(Text.find("(<=N/SM) the most blocks per SM that shared memory"),
            std::string::npos)
      << Text;
  {
    Report Known = R;
    for (KernelReport &K : Known.Kernels)
      K.Occupancy.Registers = 64;
    std::ostringstream KOS;
    renderSummary(Known, KOS);
    EXPECT_EQ(KOS.str().find("<="), std::string::npos) << KOS.str();
    EXPECT_NE(KOS.str().find("40 KiB (2/SM)"), std::string::npos) << KOS.str();
  }
  // A kernel with a figure of its own on one architecture keeps the columns
  // apart.
  R.Kernels[2 * 4].StaticBytes = 2048; // plain on sm_100
  OS.str("");
  renderSummary(R, OS);
  EXPECT_TRUE(std::regex_search(OS.str(), std::regex(R"(
kernel +sm_80 +sm_86,sm_89 +sm_90 +sm_100 +sm_103 +sm_120
)"))) << OS.str();

  OS.str("");
  renderSummary(R, OS, 0, /*OnlyFindings=*/true);
  Text = OS.str();
  EXPECT_EQ(Text.find("\nplain "), std::string::npos) << Text;
  EXPECT_NE(Text.find("\nbig "), std::string::npos) << Text;
  EXPECT_NE(Text.find("1 kernel with nothing to report not shown "
                      "(--summary=all shows them)"),
            std::string::npos)
      << Text;
}

TEST(TextReporterTest, NoKernels) {
  std::ostringstream OS;
  renderSummary(Report(), OS);
  EXPECT_EQ(OS.str(), "tilefit: no kernels found\n");
}

TEST(JsonReporterTest, DocumentFollowsTheSchema) {
  Report R = sampleReport();
  std::ostringstream OS;
  renderJson(R, {"tilefit", "9.9.9"}, OS);
  nlohmann::json J = nlohmann::json::parse(OS.str());
  EXPECT_EQ(J["schema"], "tilefit-report/1");
  EXPECT_EQ(J["tool"]["name"], "tilefit");
  EXPECT_EQ(J["tool"]["version"], "9.9.9");
  ASSERT_EQ(J["translation_units"].size(), 1u);
  EXPECT_EQ(J["translation_units"][0]["status"], "ok");
  EXPECT_EQ(J["translation_units"][0]["arch"], "sm_90");

  ASSERT_EQ(J["kernels"].size(), 1u);
  const auto &K = J["kernels"][0];
  EXPECT_EQ(K["name"], "big");
  EXPECT_EQ(K["mangled"], "_Z3bigPf");
  EXPECT_EQ(K["line"], 3);
  EXPECT_EQ(K["static_smem_bytes"], 51200);
  EXPECT_TRUE(K["unknown_reason"].is_null());
  EXPECT_EQ(K["dynamic_smem"]["declared"], false);
  EXPECT_EQ(K["limits"]["static_max"], 49152);
  EXPECT_EQ(K["limits"]["block_optin_max"], 232448);
  EXPECT_EQ(K["limits"]["reserved_per_block"], 1024);
  EXPECT_TRUE(K["limits"]["block_default_max"].is_number());
  ASSERT_EQ(K["allocations"].size(), 1u);
  const auto &A = K["allocations"][0];
  EXPECT_EQ(A["name"], "tile");
  EXPECT_EQ(A["function"], "big");
  EXPECT_EQ(A["type"], "float[64][200]");
  EXPECT_EQ(A["element_type"], "float");
  EXPECT_EQ(A["shape"], nlohmann::json::array({64, 200}));
  EXPECT_EQ(A["element_bytes"], 4);
  EXPECT_EQ(A["align"], 4);
  EXPECT_EQ(A["bytes"], 51200);
  EXPECT_EQ(A["offset"], 0);

  ASSERT_EQ(J["diagnostics"].size(), 1u);
  const auto &D = J["diagnostics"][0];
  EXPECT_EQ(D["severity"], "error");
  EXPECT_EQ(D["check"], "tilefit-static-limit");
  EXPECT_EQ(D["arch"], "sm_90");
  EXPECT_EQ(D["file"], "k.cu");
  ASSERT_EQ(D["notes"].size(), 1u);
  EXPECT_EQ(D["notes"][0]["line"], 4);
}

TEST(JsonReporterTest, UnknownFiguresAreNullWithAReason) {
  Report R;
  KernelReport K;
  K.Name = "k";
  K.Arch = "sm_80";
  K.UnknownReason = "the size of 'x' is unknown";
  R.Kernels.push_back(K);
  std::ostringstream OS;
  renderJson(R, {"tilefit", "1"}, OS);
  nlohmann::json J = nlohmann::json::parse(OS.str());
  EXPECT_TRUE(J["kernels"][0]["static_smem_bytes"].is_null());
  EXPECT_EQ(J["kernels"][0]["unknown_reason"], "the size of 'x' is unknown");
  EXPECT_TRUE(J["kernels"][0]["limits"]["block_optin_max"].is_null());
}

/// One kernel on sm_100a with per-thread arrays and Tensor Memory, one on sm_90
/// with neither, and constant memory in the unit.
Report scopesReport() {
  Report R;
  UnitReport U;
  U.File = "/p/k.cu";
  U.Arch = U.ParsedAs = "sm_100a";
  ConstantMemoryReport C;
  C.Bytes = 75;
  C.Limit = 65536;
  AllocationReport A;
  A.Var.Name = A.Var.QualifiedName = "table";
  A.Var.Type = "float[16]";
  A.Var.Shape = {16};
  A.Var.ElementBytes = 4;
  A.Var.Align = 4;
  A.Var.Bytes = 64;
  A.Offset = 8;
  C.Variables = {A};
  U.ConstantMemory = C;
  R.Units.push_back(U);
  UnitReport U90 = U;
  U90.Arch = U90.ParsedAs = "sm_90";
  R.Units.push_back(U90);

  KernelReport K;
  K.Name = "gemm";
  K.Mangled = "_Z4gemmv";
  K.Loc = {"/p/k.cu", 3, 17};
  K.TranslationUnit = "/p/k.cu";
  K.Arch = K.ParsedAs = "sm_100a";
  K.StaticBytes = 0;
  SharedVar Acc;
  Acc.Name = "acc";
  Acc.Function = "gemm";
  Acc.QualifiedName = "gemm::acc";
  Acc.Type = "float[8][8]";
  Acc.Shape = {8, 8};
  Acc.ElementBytes = 4;
  Acc.Align = 4;
  Acc.Bytes = 256;
  K.Registers.Arrays = {Acc};
  K.Registers.BytesPerThread = 256;
  K.Registers.RegistersPerThread = 64;
  K.Registers.BlockThreads = 256;
  K.Registers.BytesPerBlock = 65536;
  K.Registers.Limit = 128;
  K.Registers.LimitBasis = "__launch_bounds__(256, 2)";
  TensorMemoryReport T;
  T.Columns = 128;
  T.Capacity = 512;
  TmemAllocation Alloc;
  Alloc.Form = "tcgen05.alloc";
  Alloc.Function = "gemm";
  Alloc.Loc = {"/p/k.cu", 9, 3};
  Alloc.Columns = 128;
  T.Allocations = {Alloc};
  K.TensorMemory = T;
  R.Kernels.push_back(K);
  KernelReport Plain = K;
  Plain.Arch = Plain.ParsedAs = "sm_90";
  Plain.Registers = RegisterTileReport();
  Plain.Registers.BytesPerThread = Plain.Registers.RegistersPerThread = 0;
  Plain.TensorMemory.reset();
  R.Kernels.push_back(Plain);
  return R;
}

TEST(JsonReporterTest, EachScopeHasItsOwnKeys) {
  std::ostringstream OS;
  renderJson(scopesReport(), {"tilefit", "9.9.9"}, OS);
  nlohmann::json J = nlohmann::json::parse(OS.str());
  const auto &K = J["kernels"][0];
  // The shared-memory keys are unchanged.
  EXPECT_EQ(K["static_smem_bytes"], 0);
  EXPECT_TRUE(K["allocations"].is_array());
  const auto &G = K["registers"];
  EXPECT_EQ(G["bytes_per_thread"], 256);
  EXPECT_EQ(G["registers_per_thread"], 64);
  EXPECT_EQ(G["block_threads"], 256);
  EXPECT_EQ(G["bytes_per_block"], 65536);
  EXPECT_EQ(G["registers_per_thread_limit"], 128);
  EXPECT_EQ(G["limit_basis"], "__launch_bounds__(256, 2)");
  EXPECT_TRUE(G["limit_note"].is_null());
  ASSERT_EQ(G["arrays"].size(), 1u);
  EXPECT_EQ(G["arrays"][0]["name"], "acc");
  EXPECT_EQ(G["arrays"][0]["bytes"], 256);
  const auto &T = K["tensor_memory"];
  EXPECT_EQ(T["columns"], 128);
  EXPECT_EQ(T["capacity_columns"], 512);
  ASSERT_EQ(T["allocations"].size(), 1u);
  EXPECT_EQ(T["allocations"][0]["form"], "tcgen05.alloc");
  EXPECT_EQ(T["allocations"][0]["line"], 9);
  EXPECT_EQ(T["allocations"][0]["cta_group"], 1);
  // No Tensor Memory on sm_90: null; no arrays: an empty report.
  const auto &P = J["kernels"][1];
  EXPECT_TRUE(P["tensor_memory"].is_null());
  EXPECT_TRUE(P["registers"]["bytes_per_thread"].is_number());
  EXPECT_EQ(P["registers"]["bytes_per_thread"], 0);
  EXPECT_TRUE(P["registers"]["arrays"].empty());
  const auto &C = J["translation_units"][0]["constant_memory"];
  EXPECT_EQ(C["bytes"], 75);
  EXPECT_EQ(C["limit"], 65536);
  EXPECT_EQ(C["relocatable"], false);
  ASSERT_EQ(C["variables"].size(), 1u);
  EXPECT_EQ(C["variables"][0]["name"], "table");
  EXPECT_EQ(C["variables"][0]["offset"], 8);
}

TEST(JsonReporterTest, ScopesSurviveAReadBack) {
  std::ostringstream First;
  renderJson(scopesReport(), {"tilefit", "9.9.9"}, First);
  auto Back = readJsonReport(First.str(), "first.json");
  ASSERT_TRUE(static_cast<bool>(Back)) << Back.error();
  ASSERT_TRUE(Back->Units[0].ConstantMemory.has_value());
  EXPECT_EQ(Back->Units[0].ConstantMemory->Bytes, std::optional<uint64_t>(75));
  EXPECT_EQ(Back->Kernels[0].Registers.Limit, std::optional<uint64_t>(128));
  ASSERT_TRUE(Back->Kernels[0].TensorMemory.has_value());
  EXPECT_FALSE(Back->Kernels[1].TensorMemory.has_value());
  std::ostringstream Second;
  renderJson(*Back, {"tilefit", "9.9.9"}, Second);
  EXPECT_EQ(nlohmann::json::parse(First.str()),
            nlohmann::json::parse(Second.str()));
}

// What body slicing did to a unit is in the JSON, the fallback as words and as
// a kind, and reads back the same.
TEST(JsonReporterTest, BodySlicingIsReportedPerUnitAndReadsBack) {
  Report R = scopesReport();
  R.Units[0].Slicing.Enabled = true;
  R.Units[0].Slicing.Fallback =
      Reason(ReasonKind::SliceUnnamedCall,
             {"std::plus::operator()", "through Tile::operator+"});
  std::ostringstream First;
  renderJson(R, {"tilefit", "9.9.9"}, First);
  const auto J = nlohmann::json::parse(First.str());
  const auto &S = J["translation_units"][0]["body_slicing"];
  EXPECT_EQ(S["enabled"], true);
  EXPECT_EQ(S["functions"], 0);
  EXPECT_EQ(S["fallback_kind"]["kind"], "slice-unnamed-call");
  EXPECT_NE(S["fallback"].get<std::string>().find(
                "'std::plus::operator()' can reach shared memory (through "
                "Tile::operator+)"),
            std::string::npos)
      << S["fallback"];
  auto Back = readJsonReport(First.str(), "first.json");
  ASSERT_TRUE(static_cast<bool>(Back)) << Back.error();
  EXPECT_EQ(Back->Units[0].Slicing.Fallback, R.Units[0].Slicing.Fallback);
  EXPECT_TRUE(Back->Units[0].Slicing.Enabled);

  R.Units[0].Slicing = BodySlicing{true, 3, 41, Reason()};
  std::ostringstream Sliced;
  renderJson(R, {"tilefit", "9.9.9"}, Sliced);
  const auto SlicedDoc = nlohmann::json::parse(Sliced.str());
  const auto &T = SlicedDoc["translation_units"][0]["body_slicing"];
  EXPECT_EQ(T["functions"], 3);
  EXPECT_EQ(T["statements"], 41);
  EXPECT_TRUE(T["fallback"].is_null());
  EXPECT_TRUE(T["fallback_kind"].is_null());
}

// A number with a fraction or an exponent where an integer belongs is an error
// naming the field, not a conversion (out of range, undefined; found by
// fuzz_json_report).
TEST(JsonReporterTest, ReadingRefusesNumbersThatAreNotIntegers) {
  std::ostringstream OS;
  renderJson(sampleReport(), {"tilefit", "9.9.9"}, OS);
  nlohmann::json Doc = nlohmann::json::parse(OS.str());
  ASSERT_FALSE(Doc["kernels"][0]["allocations"].empty());
  for (const nlohmann::json &Bad :
       {nlohmann::json(6.46667e+27), nlohmann::json(1.5), nlohmann::json(-3)}) {
    SCOPED_TRACE(Bad.dump());
    nlohmann::json D = Doc;
    D["kernels"][0]["allocations"][0]["shape"][0] = Bad;
    auto Back = readJsonReport(D.dump(), "bad.json");
    ASSERT_FALSE(static_cast<bool>(Back));
    EXPECT_NE(Back.error().find("shape"), std::string::npos) << Back.error();
    EXPECT_NE(Back.error().find("expected a non-negative integer"),
              std::string::npos)
        << Back.error();
  }
}

TEST(TextReporterTest, SummaryShowsTheOtherScopesOnlyWhenPresent) {
  std::ostringstream OS;
  renderSummary(scopesReport(), OS);
  std::string Text = OS.str();
  EXPECT_TRUE(std::regex_search(
      Text, std::regex(
                R"(\n  registers +- +256 B = 64 regs of 128, 64 KiB/block\n)")))
      << Text;
  EXPECT_TRUE(std::regex_search(
      Text, std::regex(R"(\n  tensor memory +- +128/512 cols\n)")))
      << Text;
  EXPECT_NE(Text.find("constant memory, k.cu: 75 B of 64 KiB (1 variable) on "
                      "sm_90, sm_100a\n"),
            std::string::npos)
      << Text;
  // The sample without them has no extra line.
  std::ostringstream Plain;
  renderSummary(sampleReport(), Plain);
  EXPECT_EQ(Plain.str().find("registers"), std::string::npos) << Plain.str();
  EXPECT_EQ(Plain.str().find("constant memory"), std::string::npos)
      << Plain.str();
}

TEST(MarkdownReporterTest, ScopeRowsAndConstantMemory) {
  std::ostringstream OS;
  renderMarkdown(scopesReport(), "/p", OS);
  EXPECT_NE(OS.str().find("| &nbsp;&nbsp;*registers* | - | 256 B = 64 regs of "
                          "128, 64 KiB/block |"),
            std::string::npos)
      << OS.str();
  EXPECT_NE(OS.str().find("- constant memory, k.cu: 75 B of 64 KiB"),
            std::string::npos);
}

TEST(SarifReporterTest, RulesListTheScopeChecks) {
  std::ostringstream OS;
  FakeLines Lines;
  renderSarif(scopesReport(), {"tilefit", "9.9.9"}, SarifOptions(), Lines, OS);
  nlohmann::json J = nlohmann::json::parse(OS.str());
  std::set<std::string> Rules;
  for (const auto &Rule : J["runs"][0]["tool"]["driver"]["rules"])
    Rules.insert(Rule["id"].get<std::string>());
  for (const char *Id :
       {"tilefit-registers", "tilefit-constant", "tilefit-tmem"})
    EXPECT_TRUE(Rules.count(Id)) << Id;
}

// A file name that is not UTF-8 (bytes from a build system on a Latin-1 file
// system) cannot stop a report: JSON and SARIF replace the bad bytes with
// U+FFFD.
TEST(JsonReporterTest, FileNamesThatAreNotUtf8AreReplacedNotFatal) {
  Report R = sampleReport();
  auto Rename = [](std::string &F) { F = "caf\xe9/k.cu"; };
  for (KernelReport &K : R.Kernels) {
    Rename(K.Loc.File);
    for (AllocationReport &A : K.Allocations)
      Rename(A.Var.Loc.File);
  }
  for (Diagnostic &D : R.Diagnostics)
    Rename(D.Loc.File);
  std::ostringstream Json, Sarif;
  ASSERT_NO_THROW(renderJson(R, {"tilefit", "9.9.9"}, Json));
  FakeLines Lines;
  ASSERT_NO_THROW(
      renderSarif(R, {"tilefit", "9.9.9"}, SarifOptions(), Lines, Sarif));
  ASSERT_NO_THROW((void)nlohmann::json::parse(Json.str()));
  EXPECT_NE(Json.str().find("\"caf\xef\xbf\xbd/k.cu\""), std::string::npos);
  // SARIF names files by URI: the byte is percent-encoded.
  ASSERT_NO_THROW((void)nlohmann::json::parse(Sarif.str()));
  EXPECT_NE(Sarif.str().find("caf%E9/k.cu"), std::string::npos);
}

} // namespace
} // namespace tilefit
