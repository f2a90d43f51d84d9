//===- LspUnitTest.cpp - Framing, positions and features, in-process ------===//
#include "tilefit/lsp/Features.h"
#include "tilefit/lsp/Protocol.h"
#include "tilefit/lsp/Transport.h"
#include "tilefit/model/Messages.h"
#include "tilefit/reporters/KernelNameWidth.h"

#include <gtest/gtest.h>

#include <sstream>

using nlohmann::json;

namespace tilefit {
namespace lsp {
namespace {

TEST(LspTransport, ReadsFramedMessages) {
  std::string Body1 = R"({"jsonrpc":"2.0","method":"initialized","params":{}})";
  std::string Body2 = R"({"id":1,"x":"é"})";
  std::stringstream In(
      "Content-Length: " + std::to_string(Body1.size()) + "\r\n\r\n" + Body1 +
      "content-length:" + std::to_string(Body2.size()) +
      "\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n" +
      Body2);
  Incoming A = readMessage(In);
  ASSERT_EQ(A.K, Incoming::Message);
  EXPECT_EQ(A.Body["method"], "initialized");
  Incoming B = readMessage(In);
  ASSERT_EQ(B.K, Incoming::Message)
      << "header names are case-insensitive; other headers ignored";
  EXPECT_EQ(B.Body["x"], "é") << "the length counts bytes";
  EXPECT_EQ(readMessage(In).K, Incoming::End);
}

TEST(LspTransport, MalformedInput) {
  {
    std::stringstream In("Content-Type: x\r\n\r\n{}");
    Incoming R = readMessage(In);
    EXPECT_EQ(R.K, Incoming::BadHeader);
    EXPECT_NE(R.Error.find("without Content-Length"), std::string::npos);
  }
  {
    std::stringstream In("Content-Length: twelve\r\n\r\n");
    Incoming R = readMessage(In);
    EXPECT_EQ(R.K, Incoming::BadHeader);
    EXPECT_NE(R.Error.find("'twelve' is not a number"), std::string::npos);
  }
  {
    std::stringstream In("Content-Length: 5\r\n\r\n{\"a\":");
    EXPECT_EQ(readMessage(In).K, Incoming::BadJson);
  }
  {
    std::stringstream In("Content-Length: 50\r\n\r\n{}");
    Incoming R = readMessage(In);
    EXPECT_EQ(R.K, Incoming::End);
    EXPECT_NE(R.Error.find("inside a message body"), std::string::npos);
  }
  {
    std::stringstream In("Content-Length: 99999999999999999999\r\n\r\n");
    EXPECT_EQ(readMessage(In).K, Incoming::BadHeader) << "too many digits";
  }
  {
    // After a bad message the stream goes on.
    std::stringstream In(
        "Content-Length: 3\r\n\r\nxyzContent-Length: 2\r\n\r\n{}");
    EXPECT_EQ(readMessage(In).K, Incoming::BadJson);
    EXPECT_EQ(readMessage(In).K, Incoming::Message);
  }
}

TEST(LspTransport, WritesFramedMessages) {
  std::stringstream Out;
  writeMessage(Out, {{"a", "é"}});
  EXPECT_EQ(Out.str(), "Content-Length: 10\r\n\r\n{\"a\":\"é\"}");
  // Invalid UTF-8 from a source file is replaced, not thrown on.
  std::stringstream Out2;
  writeMessage(Out2, {{"a", std::string("\xff")}});
  EXPECT_NE(Out2.str().find("\"a\""), std::string::npos);
}

TEST(LspProtocol, Uris) {
  EXPECT_EQ(pathToUri("/a b/c#d.cu"), "file:///a%20b/c%23d.cu");
  EXPECT_EQ(uriToPath("file:///a%20b/c%23d.cu"), "/a b/c#d.cu");
  EXPECT_EQ(uriToPath("file://localhost/x/y.cu"), "/x/y.cu");
  EXPECT_EQ(uriToPath("file:///x/%C3%A9.cu"), "/x/é.cu");
  EXPECT_FALSE(uriToPath("untitled:Untitled-1").has_value());
  EXPECT_FALSE(uriToPath("file://server/share/x.cu").has_value());
  EXPECT_FALSE(uriToPath("file:///x%00y").has_value());
  for (std::string P : {"/plain/k.cu", "/with space/ü/😀.cu", "/pct%/x.cu"})
    EXPECT_EQ(uriToPath(pathToUri(P)), P);
}

TEST(LspProtocol, PositionEncodings) {
  std::string Line = "aé😀b"; // 1 + 2 + 4 + 1 bytes
  EXPECT_EQ(charactersOf(Line, Line.size(), PositionEncoding::Utf8), 8u);
  EXPECT_EQ(charactersOf(Line, Line.size(), PositionEncoding::Utf16), 5u);
  EXPECT_EQ(charactersOf(Line, Line.size(), PositionEncoding::Utf32), 4u);
  EXPECT_EQ(bytesOf(Line, 3, PositionEncoding::Utf16), 7u)
      << "inside the surrogate pair: past it";
  EXPECT_EQ(bytesOf(Line, 4, PositionEncoding::Utf16), 7u);
  EXPECT_EQ(bytesOf(Line, 3, PositionEncoding::Utf32), 7u);
  EXPECT_EQ(bytesOf(Line, 99, PositionEncoding::Utf16), Line.size())
      << "clamped to the line";
  Document D("x\r\naé😀b\n");
  EXPECT_EQ(D.lineCount(), 3u);
  EXPECT_EQ(D.line(0), "x") << "without its \\r";
  Position P = D.positionOf(
      2, 8, PositionEncoding::Utf16); // Clang: line 2, byte column 8 ('b')
  EXPECT_EQ(P.Line, 1u);
  EXPECT_EQ(P.Character, 4u);
  EXPECT_EQ(D.offsetOf({1, 4}, PositionEncoding::Utf16), 3u + 7u);
  EXPECT_EQ(D.offsetOf({9, 0}, PositionEncoding::Utf16), D.text().size());
}

TEST(LspProtocol, IncrementalChanges) {
  Document D("int a;\nint b;\n");
  auto Change = [](unsigned L0, unsigned C0, unsigned L1, unsigned C1,
                   std::string T) {
    return json{{"range",
                 {{"start", {{"line", L0}, {"character", C0}}},
                  {"end", {{"line", L1}, {"character", C1}}}}},
                {"text", T}};
  };
  ASSERT_TRUE(D.applyChange(Change(0, 4, 0, 5, "xy"), PositionEncoding::Utf16));
  EXPECT_EQ(D.text(), "int xy;\nint b;\n");
  ASSERT_TRUE(D.applyChange(Change(0, 7, 1, 0, ""), PositionEncoding::Utf16));
  EXPECT_EQ(D.text(), "int xy;int b;\n");
  ASSERT_TRUE(
      D.applyChange(Change(1, 0, 1, 0, "// é\n"), PositionEncoding::Utf16));
  EXPECT_EQ(D.line(1), "// é");
  ASSERT_TRUE(D.applyChange(Change(1, 3, 1, 4, "e"), PositionEncoding::Utf16));
  EXPECT_EQ(D.line(1), "// e") << "é is one UTF-16 unit";
  ASSERT_TRUE(D.applyChange({{"text", "whole"}}, PositionEncoding::Utf16));
  EXPECT_EQ(D.text(), "whole");
  EXPECT_FALSE(
      D.applyChange(Change(0, 3, 0, 1, "backwards"), PositionEncoding::Utf16));
  EXPECT_FALSE(
      D.applyChange({{"range", 3}, {"text", ""}}, PositionEncoding::Utf16));
  EXPECT_FALSE(D.applyChange({{"nottext", ""}}, PositionEncoding::Utf16));
  EXPECT_EQ(D.text(), "whole");
}

/// A report of one kernel with one allocation, on two architectures.
Report sampleReport(const std::string &File) {
  Report R;
  for (const char *Arch : {"sm_90", "sm_80"}) {
    KernelReport K;
    K.Name = "stage<2>";
    K.Loc = {File, 2, 17};
    K.Arch = Arch;
    K.TranslationUnit = File;
    K.StaticBytes = std::string(Arch) == "sm_80" ? 8192 : 16384;
    K.Limit.BlockOptinMax = std::string(Arch) == "sm_80" ? 166912 : 232448;
    K.Occupancy.BlocksPerSm = 4;
    K.Occupancy.LimitedBy = "shared memory";
    AllocationReport A;
    A.Var.Name = "buf";
    A.Var.Loc = {File, 3, 28};
    A.Var.Type =
        std::string(Arch) == "sm_80" ? "float[2][1024]" : "float[4][1024]";
    A.Var.ElementType = "float";
    A.Var.Shape = {std::string(Arch) == "sm_80" ? 2u : 4u, 1024};
    A.Var.ElementBytes = 4;
    A.Var.Align = 4;
    A.Var.Bytes = K.StaticBytes;
    A.Offset = 0;
    K.Allocations.push_back(A);
    R.Kernels.push_back(K);
  }
  Diagnostic D;
  D.Level = Severity::Warning;
  D.Check = "tilefit-budget";
  D.Message = "kernel 'stage<2>' uses ...";
  D.Loc = {File, 2, 17};
  D.TranslationUnit = File;
  D.Notes.push_back({"'buf' takes 16384 bytes", {File, 3, 28}});
  R.Diagnostics.push_back(D);
  Diagnostic InHeader = D;
  InHeader.Loc = {"/p/inc/tiles.cuh", 10, 5};
  InHeader.Notes.clear();
  R.Diagnostics.push_back(InHeader);
  return R;
}

const char *SampleText = "#include \"inc/tiles.cuh\"\n"
                         "__global__ void stage() {\n"
                         "  /*😀*/__shared__ float buf[S][1024]; // stages\n"
                         "}\n";

// The messages tilefit reads, typed (Protocol.h): what each takes, and the
// member each names when it does not read.
TEST(LspProtocol, TypedParams) {
  InitializeParams I = readInitializeParams(json{
      {"capabilities",
       {{"general", {{"positionEncodings", {"utf-16", "utf-8"}}}},
        {"textDocument",
         {{"publishDiagnostics", {{"relatedInformation", true}}}}}}},
      {"initializationOptions", {{"budget", 0.5}}},
      {"workspaceFolders", {{{"uri", "file:///ws/a"}}, {{"uri", "https://x"}}}},
      {"rootUri", "file:///ignored"}});
  EXPECT_TRUE(I.Utf8Positions);
  EXPECT_TRUE(I.RelatedInformation);
  EXPECT_EQ(I.InitializationOptions["budget"], 0.5);
  EXPECT_EQ(I.Roots, std::vector<std::string>{"/ws/a"});
  // Without folders, rootUri, then rootPath; nothing required.
  EXPECT_EQ(readInitializeParams(json{{"rootUri", "file:///r"}}).Roots,
            std::vector<std::string>{"/r"});
  EXPECT_EQ(readInitializeParams(json{{"rootPath", "/p"}}).Roots,
            std::vector<std::string>{"/p"});
  InitializeParams None = readInitializeParams(json::object());
  EXPECT_FALSE(None.Utf8Positions || None.RelatedInformation);
  EXPECT_TRUE(None.InitializationOptions.is_null() && None.Roots.empty());

  // codeAction: the context's diagnostics, objects only; no list is an error.
  const json Doc = {{"uri", "file:///p/k.cu"}};
  CodeActionParams C = readCodeActionParams(
      json{{"textDocument", Doc},
           {"context", {{"diagnostics", {{{"code", "tilefit-budget"}}, 3}}}}});
  EXPECT_EQ(C.Doc.Path, "/p/k.cu");
  ASSERT_EQ(C.Diagnostics.size(), 1u);
  EXPECT_EQ(C.Diagnostics[0]["code"], "tilefit-budget");
  EXPECT_THROW(readCodeActionParams(json{{"textDocument", Doc}}), BadParams);

  DidOpenParams O = readDidOpenParams(
      json{{"textDocument",
            {{"uri", "file:///a/k.cu"}, {"version", 3}, {"text", "x"}}}});
  EXPECT_EQ(O.Doc.Path, "/a/k.cu");
  EXPECT_EQ(O.Doc.Version, 3);
  EXPECT_EQ(O.Text, "x");
  HoverParams H =
      readHoverParams(json{{"textDocument", {{"uri", "file:///a/k.cu"}}},
                           {"position", {{"line", 4u}, {"character", 2u}}}});
  EXPECT_EQ(H.Pos.Line, 4u);
  EXPECT_TRUE(H.Doc.Version.is_null());

  auto Why = [](auto Read, const json &Params) -> std::string {
    try {
      Read(Params);
    } catch (const BadParams &E) {
      return E.what();
    }
    return "";
  };
  EXPECT_EQ(Why(readDocumentRef, json::object()), "missing 'textDocument'");
  EXPECT_EQ(Why(readDocumentRef, json{{"textDocument", {{"uri", 3}}}}),
            "'uri' must be a string");
  EXPECT_EQ(
      Why(readDocumentRef, json{{"textDocument", {{"uri", "https://x/k.cu"}}}}),
      "'https://x/k.cu' is not a file: URI");
  EXPECT_EQ(
      Why(readDidOpenParams, json{{"textDocument", {{"uri", "file:///k.cu"}}}}),
      "missing 'text'");
  EXPECT_EQ(
      Why(readDidChangeParams, json{{"textDocument", {{"uri", "file:///k.cu"}}},
                                    {"contentChanges", "x"}}),
      "'contentChanges' must be an array");
  EXPECT_EQ(
      Why(readHoverParams, json{{"textDocument", {{"uri", "file:///k.cu"}}},
                                {"position", {{"line", -1}}}}),
      "malformed 'position'");
  EXPECT_EQ(
      Why(readInlayHintParams,
          json{{"textDocument", {{"uri", "file:///k.cu"}}},
               {"range", {{"start", {{"line", 0u}, {"character", 0u}}}}}}),
      "missing 'end'");
  EXPECT_EQ(Why(readCancelId, json::object()), "missing 'id'");
}

TEST(LspFeatures, DiagnosticsRangesNotesAndHeaders) {
  std::string File = "/p/k.cu";
  Report R = sampleReport(File);
  Document Doc(SampleText);
  FeatureOptions O;
  O.DocsUri = "https://x/checks.md";
  json Ds = diagnosticsFor(R, File, Doc, O);
  ASSERT_EQ(Ds.size(), 2u) << Ds.dump();
  EXPECT_EQ(
      Ds[0]["range"],
      json::parse(
          R"({"start":{"line":1,"character":16},"end":{"line":1,"character":21}})"));
  EXPECT_EQ(Ds[0]["severity"], 2);
  EXPECT_EQ(Ds[0]["codeDescription"]["href"],
            "https://x/checks.md#tilefit-budget");
  EXPECT_EQ(Ds[0]["relatedInformation"][0]["location"]["uri"],
            "file:///p/k.cu");
  // 😀 is two UTF-16 units and four bytes: Clang's byte column 28 ('buf') is
  // character 25.
  EXPECT_EQ(
      Ds[0]["relatedInformation"][0]["location"]["range"]["start"]["character"],
      25);
  EXPECT_EQ(
      Ds[0]["relatedInformation"][0]["location"]["range"]["end"]["character"],
      28);
  // The header's finding sits on the #include line and says where it is.
  EXPECT_EQ(Ds[1]["range"]["start"]["line"], 0);
  EXPECT_EQ(Ds[1]["message"].get<std::string>().rfind(
                "in included file tiles.cuh:10:5: ", 0),
            0u);
  // Without relatedInformation support, notes are part of the message.
  O.RelatedInformation = false;
  Ds = diagnosticsFor(R, File, Doc, O);
  EXPECT_FALSE(Ds[0].contains("relatedInformation"));
  EXPECT_NE(Ds[0]["message"].get<std::string>().find(
                "k.cu:3:28: note: 'buf' takes 16384 bytes"),
            std::string::npos);
  // Another file's report says nothing about this one.
  EXPECT_TRUE(diagnosticsFor(R, "/p/other.cu", Doc, O).empty());
}

// Three architectures that agree are one diagnostic naming them; one that
// differs stays apart.
TEST(LspFeatures, TheSameFindingOnSeveralArchitecturesIsOne) {
  std::string File = "/p/k.cu";
  Report R;
  for (const char *Arch : {"sm_80", "sm_90", "sm_90a", "sm_120"}) {
    Diagnostic D;
    D.Level = Severity::Error;
    D.Check = "tilefit-static-limit";
    D.Arch = Arch;
    setMessage(D, "kernel '" + kernelWord("k") +
                      "' uses 65536 bytes (64 KiB) of static shared memory "
                      "on " +
                      archWord(Arch) +
                      ", more than the 49152 bytes (48 KiB) ptxas accepts");
    if (std::string(Arch) == "sm_120")
      D.Message += " there";
    D.Loc = {File, 2, 17};
    D.TranslationUnit = File;
    D.Notes.push_back(
        makeNote("'t' takes 65536 bytes on " + archWord(Arch), {File, 3, 20}));
    R.Diagnostics.push_back(D);
  }
  Document Doc(SampleText);
  json Ds = diagnosticsFor(R, File, Doc, FeatureOptions());
  ASSERT_EQ(Ds.size(), 2u) << Ds.dump(1);
  EXPECT_EQ(Ds[0]["message"],
            "kernel 'k' uses 65536 bytes (64 KiB) of static shared memory on "
            "sm_80, sm_90 and sm_90a, more than the 49152 bytes (48 KiB) ptxas "
            "accepts");
  EXPECT_EQ(Ds[0]["relatedInformation"][0]["message"],
            "'t' takes 65536 bytes on sm_80, sm_90 and "
            "sm_90a");
  EXPECT_NE(Ds[1]["message"].get<std::string>().find("on sm_120, more"),
            std::string::npos);
}

// A CuTe-length kernel name reaches the editor in the short form the text
// report prints.
TEST(LspFeatures, LongKernelNamesAreShortInMessages) {
  std::string File = "/p/k.cu";
  Report R = sampleReport(File);
  const std::string Long =
      "gemm_device<cute::tuple<cute::C<128>, cute::C<128>, cute::C<64>>, "
      "cutlass::half_t, cute::Layout<cute::tuple<cute::C<8>, int>>, "
      "cute::Swizzle<3, 3, 3>>";
  for (KernelReport &K : R.Kernels)
    K.Name = Long;
  setMessage(R.Diagnostics[0], "kernel '" + kernelWord(Long) + "' uses ...");
  Document Doc(SampleText);
  FeatureOptions O;
  json Ds = diagnosticsFor(R, File, Doc, O);
  ASSERT_FALSE(Ds.empty());
  const std::string M = Ds[0]["message"].get<std::string>();
  EXPECT_EQ(M.find("cute::"), std::string::npos) << M;
  EXPECT_NE(M.find("kernel '" + shortName(Long, DefaultNameWidth) + "' uses"),
            std::string::npos)
      << M;

  // The hover stays short: the readable name and the footprint first, the
  // whole name last; a long storage type likewise.
  json H = hoverAt(R, File, Doc, {1, 18}, O);
  ASSERT_TRUE(H.is_object());
  const std::string K = H["contents"]["value"];
  const std::string Heading = K.substr(0, K.find('\n'));
  EXPECT_EQ(Heading, "**`__global__ " + shortName(Long, DefaultNameWidth) +
                         "`** — sm_80 8 KiB (<=4/SM) · sm_90 16 KiB (<=4/SM)")
      << K;
  EXPECT_EQ(K.find(Long), K.rfind("\n\nFull name: `") + 14) << K;
  EXPECT_EQ(K.find("cute::"), K.find(Long) + 12) << "only in the last line";
  EXPECT_EQ(K.substr(K.size() - Long.size() - 1), Long + "`");
  const std::string LongType =
      "cute::array_aligned<cutlass::half_t, 8192UL, 128UL>";
  for (KernelReport &KR : R.Kernels)
    for (AllocationReport &A : KR.Allocations)
      A.Var.Type = LongType;
  H = hoverAt(R, File, Doc, {2, 3}, O);
  ASSERT_TRUE(H.is_object());
  const std::string V = H["contents"]["value"];
  const std::string Short = shortName(LongType, DefaultNameWidth);
  ASSERT_NE(Short, LongType) << "CuTe's namespaces are dropped";
  EXPECT_NE(V.find("`__shared__ " + Short + "`"), std::string::npos) << V;
  EXPECT_EQ(V.find(LongType), V.rfind("\n\nType: `") + 9) << V;
}

TEST(LspFeatures, HoverHintsAndLenses) {
  std::string File = "/p/k.cu";
  Report R = sampleReport(File);
  Document Doc(SampleText);
  FeatureOptions O;
  json H = hoverAt(R, File, Doc, {2, 3}, O);
  ASSERT_TRUE(H.is_object());
  std::string T = H["contents"]["value"];
  // Architectures in order, each with its own figure.
  size_t A80 = T.find("| `stage<2>` | sm_80 | 8 KiB | 0 | 8 KiB | 163 KiB | 4 "
                      "(shared memory) |");
  size_t A90 = T.find("| `stage<2>` | sm_90 | 16 KiB | 0 | 16 KiB | 227 KiB | "
                      "4 (shared memory) |");
  EXPECT_NE(A80, std::string::npos) << T;
  EXPECT_NE(A90, std::string::npos) << T;
  EXPECT_LT(A80, A90);
  // On the kernel's name: the kernel's table.
  H = hoverAt(R, File, Doc, {1, 18}, O);
  ASSERT_TRUE(H.is_object());
  EXPECT_NE(H["contents"]["value"].get<std::string>().find(
                "**`__global__ stage<2>`**"),
            std::string::npos);
  EXPECT_TRUE(hoverAt(R, File, Doc, {1, 2}, O).is_null())
      << "on '__global__', not the name";
  EXPECT_TRUE(hoverAt(R, File, Doc, {3, 0}, O).is_null());

  json Hints = inlayHintsFor(R, File, Doc, 0, 10, O);
  ASSERT_EQ(Hints.size(), 1u);
  EXPECT_EQ(Hints[0]["label"], "8 KiB (sm_80) | 16 KiB (sm_90)");
  // After the ';' (byte 41 of the line; the emoji counts 2 in UTF-16).
  std::string Line = Doc.line(2);
  EXPECT_EQ(Hints[0]["position"]["character"], Line.find(';') + 1 - 2);
  EXPECT_TRUE(inlayHintsFor(R, File, Doc, 3, 10, O).empty())
      << "outside the range";

  json Lenses = codeLensesFor(R, File, Doc, O);
  ASSERT_EQ(Lenses.size(), 1u);
  EXPECT_EQ(Lenses[0]["command"]["title"],
            "stage<2>: sm_80 8 KiB (<=4/SM) · sm_90 16 KiB (<=4/SM)")
      << "no registers known: what shared memory allows";
}

} // namespace
} // namespace lsp
} // namespace tilefit
