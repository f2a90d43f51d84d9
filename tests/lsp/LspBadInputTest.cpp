//===- LspBadInputTest.cpp - What the language server reads ---------------===//
//
// The server reads the files the editor opens (wherever they are: the editor
// named them) and, to find their flags, compilation databases inside the
// workspace and the response files those name inside it. A database or a
// configuration file above the workspace, or a response file or a file included
// by force (-include) outside it, is not read; a request about a file that is
// not open reads nothing.
//
//===----------------------------------------------------------------------===//
#include "LspClient.h"

#include "../support/TestSupport.h"
#include "tilefit/lsp/Protocol.h"

#include "llvm/Support/FileSystem.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <set>

namespace tilefit {
namespace test {
namespace {

using json = nlohmann::json;

/// 64 KiB of shared memory with the build's -DTILE=16384 (over every static
/// limit), 64 bytes without it.
const char Kernel[] = "#ifndef TILE\n"
                      "#define TILE 16\n"
                      "#endif\n"
                      "__global__ void k(float *o) {\n"
                      "  __shared__ float t[TILE];\n"
                      "  t[threadIdx.x] = o[0];\n"
                      "  __syncthreads();\n"
                      "  o[1] = t[threadIdx.x + 1];\n"
                      "}\n";

/// What a file outside the workspace holds; it must never reach the editor.
const char Secret[] = "SECRET_TOKEN_5f3a";

class BadInputLsp : public TempDirTest {
protected:
  void SetUp() override {
    TempDirTest::SetUp();
    Workspace = Dir + "/ws";
    llvm::sys::fs::create_directories(Workspace);
    write("secret.rsp", std::string("-DTILE=16384 -D") + Secret + "\n");
    write("secret.txt", std::string(Secret) + "\n");
  }

  std::unique_ptr<LspClient> start() {
    auto C = std::make_unique<LspClient>(
        std::vector<std::string>{binary(), "lsp", "--lsp-debounce-ms=20",
                                 "--no-cuda-toolkit", "--no-cache"},
        Workspace);
    EXPECT_TRUE(C->started());
    int Id = C->request("initialize", {{"processId", nullptr},
                                       {"rootUri", lsp::pathToUri(Workspace)},
                                       {"capabilities", json::object()}});
    EXPECT_TRUE(C->response(Id, std::chrono::seconds(60)).has_value())
        << C->transcript();
    C->notify("initialized", json::object());
    return C;
  }

  void open(LspClient &C, const std::string &Path, const std::string &Text) {
    C.notify("textDocument/didOpen", {{"textDocument",
                                       {{"uri", lsp::pathToUri(Path)},
                                        {"languageId", "cuda"},
                                        {"version", 1},
                                        {"text", Text}}}});
  }

  /// The checks of the next diagnostics published for \p Path.
  std::set<std::string> checksPublished(LspClient &C, const std::string &Path) {
    auto M = C.diagnostics(lsp::pathToUri(Path), std::chrono::seconds(60));
    EXPECT_TRUE(M.has_value()) << C.transcript();
    std::set<std::string> Codes;
    if (M)
      for (const json &D : (*M)["params"]["diagnostics"])
        Codes.insert(D.value("code", ""));
    return Codes;
  }

  /// ws/build/compile_commands.json with one entry for \p File, run in
  /// ws/build.
  void writeBuildDatabase(const std::string &Command, const std::string &File) {
    write("ws/build/compile_commands.json",
          json::array({{{"directory", Workspace + "/build"},
                        {"command", Command},
                        {"file", File}}})
              .dump());
  }

  bool logged(LspClient &C, const std::string &Text) {
    return C
        .waitFor(
            [&](const json &M) {
              return M.value("method", "") == "window/logMessage" &&
                     M["params"]["message"].get<std::string>().find(Text) !=
                         std::string::npos;
            },
            std::chrono::seconds(30))
        .has_value();
  }

  void finish(LspClient &C) {
    int Id = C.request("shutdown", nullptr);
    EXPECT_TRUE(C.response(Id, std::chrono::seconds(30)).has_value());
    C.notify("exit", nullptr);
    EXPECT_EQ(C.finish(), 0);
    EXPECT_EQ(C.transcript().find(Secret), std::string::npos)
        << "the server sent what a file outside the workspace holds:\n"
        << C.transcript();
  }

  std::string Workspace;
};

TEST_F(BadInputLsp, ADatabaseAboveTheWorkspaceIsNotRead) {
  std::string K = write("ws/k.cu", Kernel);
  write("compile_commands.json",
        json::array({{{"directory", Dir},
                      {"command", "nvcc -DTILE=16384 -arch=sm_80 -c " + K},
                      {"file", K}}})
            .dump());
  auto C = start();
  open(*C, K, Kernel);
  EXPECT_EQ(checksPublished(*C, K).count("tilefit-static-limit"), 0u)
      << "the database above the workspace was used\n"
      << C->transcript();
  EXPECT_TRUE(logged(*C, "outside the workspace")) << C->transcript();
  finish(*C);
}

TEST_F(BadInputLsp, AFileIncludedByForceFromOutsideTheWorkspaceIsNotRead) {
  std::string K = write("ws/k.cu", Kernel);
  std::string Outside = write("tile.h", "#define TILE 16384\n");
  for (const std::string &Flags :
       {"-include " + Outside, "--pre-include=" + Outside, "-include" + Outside,
        std::string("-imacros ../../tile.h")}) {
    SCOPED_TRACE(Flags);
    writeBuildDatabase("nvcc -arch=sm_80 " + Flags + " -c " + K, K);
    auto C = start();
    open(*C, K, Kernel);
    EXPECT_EQ(checksPublished(*C, K).count("tilefit-static-limit"), 0u)
        << C->transcript();
    EXPECT_TRUE(logged(*C, "tile.h' is outside the workspace; not read"))
        << C->transcript();
    finish(*C);
  }
}

TEST_F(BadInputLsp, AFileIncludedByForceInsideTheWorkspaceIsRead) {
  // The control: the same forced include from inside the workspace applies.
  std::string K = write("ws/k.cu", Kernel);
  std::string Inside = write("ws/tile.h", "#define TILE 16384\n");
  writeBuildDatabase("nvcc -arch=sm_80 -include " + Inside + " -c " + K, K);
  auto C = start();
  open(*C, K, Kernel);
  EXPECT_EQ(checksPublished(*C, K).count("tilefit-static-limit"), 1u)
      << C->transcript();
  finish(*C);
}

TEST_F(BadInputLsp, AConfigurationAboveTheWorkspaceIsNotRead) {
  std::string K = write("ws/k.cu", Kernel);
  // A budget of 0.01 % of the shared memory per block would flag the 64-byte
  // kernel.
  write(".tilefit.yaml", "Budget: 0.0001\n");
  auto C = start();
  open(*C, K, Kernel);
  EXPECT_EQ(checksPublished(*C, K).count("tilefit-budget"), 0u)
      << "the configuration above the workspace was used\n"
      << C->transcript();
  EXPECT_TRUE(logged(*C, ".tilefit.yaml: outside the workspace"))
      << C->transcript();
  finish(*C);
}

TEST_F(BadInputLsp, AConfigurationInsideTheWorkspaceIsRead) {
  // The control: the same configuration in the workspace applies.
  std::string K = write("ws/k.cu", Kernel);
  write("ws/.tilefit.yaml", "Budget: 0.0001\n");
  auto C = start();
  open(*C, K, Kernel);
  EXPECT_EQ(checksPublished(*C, K).count("tilefit-budget"), 1u)
      << C->transcript();
  finish(*C);
}

// The editor's settings are read by the configuration's own reader, one at a
// time: a setting it refuses is logged with its message and ignored, and the
// others apply.
TEST_F(BadInputLsp, SettingsAreReadAsTheConfigurationIs) {
  std::string K = write("ws/k.cu", Kernel);
  auto C = start();
  open(*C, K, Kernel);
  EXPECT_EQ(checksPublished(*C, K).count("tilefit-budget"), 0u)
      << C->transcript();
  C->notify("workspace/didChangeConfiguration",
            {{"settings",
              {{"tilefit",
                {{"budget", 0.0001},
                 {"checks", "tilefit-*,-tilefit-budgte"},
                 {"architectures", json::array({"sm_8O"})}}}}}});
  EXPECT_EQ(checksPublished(*C, K).count("tilefit-budget"), 1u)
      << "the budget applies\n"
      << C->transcript();
  EXPECT_TRUE(logged(*C, "did you mean 'tilefit-budget'")) << C->transcript();
  EXPECT_TRUE(logged(*C, "'sm_8O' is not an architecture name"))
      << C->transcript();
  C->notify("workspace/didChangeConfiguration",
            {{"settings", {{"tilefit", {{"budget", 2}}}}}});
  EXPECT_TRUE(logged(
      *C,
      "expected a fraction in (0, 1] or a percentage in (0%, 100%], got '2'"))
      << C->transcript();
  finish(*C);
}

TEST_F(BadInputLsp, AResponseFileOutsideTheWorkspaceIsNotRead) {
  std::string K = write("ws/k.cu", Kernel);
  writeBuildDatabase("nvcc -arch=sm_80 @" + Dir + "/secret.rsp -c " + K, K);
  auto C = start();
  open(*C, K, Kernel);
  EXPECT_EQ(checksPublished(*C, K).count("tilefit-static-limit"), 0u)
      << C->transcript();
  EXPECT_TRUE(logged(*C, "secret.rsp' is outside the workspace; not read"))
      << C->transcript();
  finish(*C);
}

TEST_F(BadInputLsp, AResponseFileInsideTheWorkspaceIsRead) {
  // The control: the same flags from inside the workspace apply.
  std::string K = write("ws/k.cu", Kernel);
  write("ws/build/tile.rsp", "-DTILE=16384\n");
  writeBuildDatabase("nvcc -arch=sm_80 @tile.rsp -c " + K, K);
  auto C = start();
  open(*C, K, Kernel);
  EXPECT_EQ(checksPublished(*C, K).count("tilefit-static-limit"), 1u)
      << C->transcript();
  finish(*C);
}

TEST_F(BadInputLsp, AFileOutsideTheWorkspaceThatTheEditorOpensIsAnalysed) {
  std::string O = write("elsewhere/o.cu", Kernel);
  auto C = start();
  open(*C, O, Kernel);
  EXPECT_EQ(checksPublished(*C, O), std::set<std::string>{}) << C->transcript();
  int Id = C->request("textDocument/codeLens",
                      {{"textDocument", {{"uri", lsp::pathToUri(O)}}}});
  auto R = C->response(Id, std::chrono::seconds(60));
  ASSERT_TRUE(R.has_value()) << C->transcript();
  EXPECT_NE(R->dump().find("64 B"), std::string::npos) << R->dump();
  finish(*C);
}

TEST_F(BadInputLsp, RequestsAboutFilesThatAreNotOpenReadNothing) {
  auto C = start();
  for (const char *Method : {"textDocument/hover", "textDocument/inlayHint",
                             "textDocument/codeLens"}) {
    SCOPED_TRACE(Method);
    json Params = {
        {"textDocument", {{"uri", lsp::pathToUri(Dir + "/secret.txt")}}},
        {"position", {{"line", 0}, {"character", 3}}},
        {"range",
         {{"start", {{"line", 0}, {"character", 0}}},
          {"end", {{"line", 1}, {"character", 0}}}}}};
    int Id = C->request(Method, Params);
    auto R = C->response(Id, std::chrono::seconds(30));
    ASSERT_TRUE(R.has_value()) << C->transcript();
    if (R->contains("result")) {
      EXPECT_TRUE((*R)["result"].is_null() || (*R)["result"].empty())
          << R->dump();
    }
  }
  finish(*C);
}

} // namespace
} // namespace test
} // namespace tilefit
