//===- LspSessionTest.cpp - `tilefit lsp` driven through whole sessions ---===//
//
// A client speaks to the built binary over pipes: it opens files, edits them,
// asks for hovers, inlay hints and code lenses, and checks what the server
// publishes.
//
//===----------------------------------------------------------------------===//
#include "LspClient.h"

#include "../support/TestSupport.h"

#include "tilefit/lsp/Protocol.h"

#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <map>
#include <set>
#include <tuple>

using nlohmann::json;

namespace tilefit {
namespace test {
namespace {

const char *TransposeKernel = R"(template <int TILE>
__global__ void transpose(const float *in, float *out) {
  // the tile: one column of padding against bank conflicts
  __shared__ float tile[TILE][TILE + 1];
  tile[threadIdx.y][threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}
template __global__ void transpose<32>(const float *, float *);
)";

class LspSession : public TempDirTest {
protected:
  std::unique_ptr<LspClient> start(std::vector<std::string> Extra = {},
                                   json Capabilities = nullptr) {
    std::vector<std::string> Argv = {binary(), "lsp", "--lsp-debounce-ms=20",
                                     "--no-cuda-toolkit"};
    Argv.insert(Argv.end(), Extra.begin(), Extra.end());
    auto C = std::make_unique<LspClient>(Argv, Dir);
    EXPECT_TRUE(C->started());
    if (Capabilities.is_null())
      Capabilities = {
          {"textDocument",
           {{"publishDiagnostics", {{"relatedInformation", true}}}}}};
    int Id = C->request("initialize", {{"processId", nullptr},
                                       {"rootUri", lsp::pathToUri(Dir)},
                                       {"capabilities", Capabilities}});
    auto R = C->response(Id);
    EXPECT_TRUE(R.has_value()) << C->transcript();
    if (R)
      InitResult = (*R)["result"];
    C->notify("initialized", json::object());
    return C;
  }

  void open(LspClient &C, const std::string &Path, const std::string &Text,
            int Version = 1) {
    C.notify("textDocument/didOpen", {{"textDocument",
                                       {{"uri", lsp::pathToUri(Path)},
                                        {"languageId", "cuda"},
                                        {"version", Version},
                                        {"text", Text}}}});
  }

  static json docId(const std::string &Path) {
    return {{"uri", lsp::pathToUri(Path)}};
  }

  /// The diagnostics of the next publication for \p Path.
  json nextDiagnostics(LspClient &C, const std::string &Path) {
    auto M = C.diagnostics(lsp::pathToUri(Path));
    EXPECT_TRUE(M.has_value()) << C.transcript();
    return M ? (*M)["params"] : json();
  }

  json result(LspClient &C, int Id) {
    auto R = C.response(Id);
    EXPECT_TRUE(R.has_value()) << C.transcript();
    if (!R)
      return nullptr;
    EXPECT_FALSE(R->contains("error")) << R->dump();
    return (*R)["result"];
  }

  void shutdown(LspClient &C) {
    json R = result(C, C.request("shutdown", nullptr));
    EXPECT_TRUE(R.is_null());
    C.notify("exit", nullptr);
    EXPECT_EQ(C.finish(), 0) << "exit after shutdown is status 0";
  }

  json InitResult;
};

/// The environment process \p Pid was started with (by its last exec).
std::map<std::string, std::string> startEnvironment(int Pid) {
  std::map<std::string, std::string> Out;
  auto Bytes = llvm::MemoryBuffer::getFileAsStream("/proc/" +
                                                   std::to_string(Pid) +
                                                   "/environ");
  if (!Bytes)
    return Out;
  llvm::SmallVector<llvm::StringRef, 64> Entries;
  (*Bytes)->getBuffer().split(Entries, '\0', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef E : Entries) {
    auto [Name, Value] = E.split('=');
    Out[Name.str()] = Value.str();
  }
  return Out;
}

// tilefit runs itself again with glibc's malloc on transparent huge pages
// where the kernel gives them on request (tool/HugePages.h): the server was
// run again with GLIBC_TUNABLES naming glibc.malloc.hugetlb=1 after what it
// said already, and with what it was given saved (for the processes it
// starts); a setting of its own (=0) keeps it from running again. Where the
// kernel gives huge pages always or never, nothing changes. (glibc may
// rewrite the start environment's GLIBC_TUNABLES in place past its first
// tunable: only the start of a list is compared.)
TEST_F(LspSession, RunsOnHugePagesWhereTheSystemGivesThemOnRequest) {
  auto Mode = llvm::MemoryBuffer::getFileAsStream(
      "/sys/kernel/mm/transparent_hugepage/enabled");
  const bool OnRequest = Mode && (*Mode)->getBuffer().contains("[madvise]");
  const char *Was = std::getenv("GLIBC_TUNABLES");
  const std::optional<std::string> Saved =
      Was ? std::optional<std::string>(Was) : std::nullopt;
  struct Case {
    const char *Given;  // nullptr: unset
    const char *Starts; // how the run's GLIBC_TUNABLES starts; nullptr: unset
    const char *Before; // what the run again saved; nullptr: not run again
  };
  const Case Cases[] = {
      {nullptr, OnRequest ? "glibc.malloc.hugetlb=1" : nullptr,
       OnRequest ? "-" : nullptr},
      {"glibc.malloc.arena_max=8", "glibc.malloc.arena_max=8",
       OnRequest ? "=glibc.malloc.arena_max=8" : nullptr},
      {"glibc.malloc.hugetlb=0", "glibc.malloc.hugetlb=0", nullptr},
  };
  for (const Case &C : Cases) {
    SCOPED_TRACE(C.Given ? C.Given : "(unset)");
    if (C.Given)
      setenv("GLIBC_TUNABLES", C.Given, 1);
    else
      unsetenv("GLIBC_TUNABLES");
    auto Client = start();
    ASSERT_TRUE(Client->started());
    // The server answered initialize: it is the program as run again.
    const auto Env = startEnvironment(Client->pid());
    ASSERT_FALSE(Env.empty());
    auto Tunables = Env.find("GLIBC_TUNABLES");
    auto Before = Env.find("TILEFIT_GLIBC_TUNABLES_BEFORE");
    if (C.Starts) {
      ASSERT_NE(Tunables, Env.end());
      EXPECT_TRUE(llvm::StringRef(Tunables->second).starts_with(C.Starts))
          << Tunables->second;
    } else {
      EXPECT_EQ(Tunables, Env.end());
    }
    if (C.Before) {
      ASSERT_NE(Before, Env.end());
      EXPECT_EQ(Before->second, C.Before);
    } else {
      EXPECT_EQ(Before, Env.end());
    }
    shutdown(*Client);
  }
  if (Saved)
    setenv("GLIBC_TUNABLES", Saved->c_str(), 1);
  else
    unsetenv("GLIBC_TUNABLES");
}

TEST_F(LspSession, InitializeAdvertisesWhatIsSupported) {
  auto C = start();
  const json &Caps = InitResult["capabilities"];
  EXPECT_EQ(Caps["textDocumentSync"]["openClose"], true);
  EXPECT_EQ(Caps["textDocumentSync"]["change"], 2) << "incremental";
  EXPECT_EQ(Caps["textDocumentSync"]["save"]["includeText"], false);
  EXPECT_EQ(Caps["hoverProvider"], true);
  EXPECT_EQ(Caps["inlayHintProvider"], true);
  EXPECT_EQ(Caps["codeLensProvider"]["resolveProvider"], false);
  EXPECT_EQ(Caps["documentSymbolProvider"], true);
  EXPECT_EQ(Caps["codeActionProvider"]["codeActionKinds"],
            json::array({"quickfix"}));
  EXPECT_EQ(Caps["positionEncoding"], "utf-16");
  // Exactly these: nothing advertised that is not served.
  std::set<std::string> Keys;
  for (auto It = Caps.begin(); It != Caps.end(); ++It)
    Keys.insert(It.key());
  EXPECT_EQ(Keys,
            (std::set<std::string>{"codeActionProvider", "codeLensProvider",
                                   "documentSymbolProvider", "hoverProvider",
                                   "inlayHintProvider", "positionEncoding",
                                   "textDocumentSync"}));
  EXPECT_EQ(InitResult["serverInfo"]["name"], "tilefit");
  shutdown(*C);
}

// A load whose lanes share a bank: the warning is published, and hover over the
// access shows its degree; hover over the padded tile's access shows none.
TEST_F(LspSession, HoverOverAnAccessShowsItsBankConflicts) {
  const std::string Source = R"(template <int TILE, int PAD>
__global__ void transpose(const float *in, float *out) {
  __shared__ float tile[TILE][TILE + PAD];
  tile[threadIdx.y][threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}
void run(const float *in, float *out) {
  transpose<32, 0><<<1, dim3(32, 8)>>>(in, out);
  transpose<32, 1><<<1, dim3(32, 8)>>>(in, out);
}
)";
  std::string K = write("k.cu", Source);
  auto C = start({"--arch=sm_90"});
  open(*C, K, Source);
  json P = nextDiagnostics(*C, K);
  ASSERT_EQ(P["diagnostics"].size(), 1u) << P.dump();
  const json &D = P["diagnostics"][0];
  EXPECT_EQ(D["code"], "tilefit-bank-conflict") << D.dump();
  EXPECT_EQ(D["severity"], 2) << "a warning";
  EXPECT_EQ(D["range"]["start"]["line"], 5);
  EXPECT_NE(D["message"].get<std::string>().find("32-way"), std::string::npos)
      << D.dump();

  json H =
      result(*C, C->request("textDocument/hover",
                            {{"textDocument", docId(K)},
                             {"position", {{"line", 5}, {"character", 22}}}}));
  ASSERT_TRUE(H.is_object()) << H.dump();
  const std::string Text = H["contents"]["value"];
  EXPECT_NE(Text.find("load of `tile`"), std::string::npos) << Text;
  EXPECT_NE(Text.find("| `transpose<32, 0>` | sm_90 | **32-way** (bank 0) | 32 "
                      "| 32×8×1 (launch) |"),
            std::string::npos)
      << Text;
  EXPECT_NE(Text.find("| `transpose<32, 1>` | sm_90 | conflict-free | 1 |"),
            std::string::npos)
      << Text;
  // The store's row is conflict-free in both.
  H = result(*C, C->request("textDocument/hover",
                            {{"textDocument", docId(K)},
                             {"position", {{"line", 3}, {"character", 3}}}}));
  ASSERT_TRUE(H.is_object()) << H.dump();
  const std::string Store = H["contents"]["value"];
  EXPECT_NE(Store.find("store to `tile`"), std::string::npos) << Store;
  EXPECT_EQ(Store.find("-way"), std::string::npos) << Store;
  shutdown(*C);
}

TEST_F(LspSession, EditOverTheLimitAndBack) {
  std::string K = write("k.cu", TransposeKernel);
  auto C = start({"--arch=sm_90"});
  open(*C, K, TransposeKernel);
  json P = nextDiagnostics(*C, K);
  EXPECT_EQ(P["version"], 1);
  EXPECT_TRUE(P["diagnostics"].empty()) << P.dump();

  // Hover on the tile: its type, shape, bytes and the kernel's totals per
  // architecture.
  json H =
      result(*C, C->request("textDocument/hover",
                            {{"textDocument", docId(K)},
                             {"position", {{"line", 3}, {"character", 20}}}}));
  ASSERT_TRUE(H.is_object()) << H.dump();
  std::string Text = H["contents"]["value"];
  EXPECT_EQ(H["contents"]["kind"], "markdown");
  EXPECT_NE(Text.find("float[32][33]"), std::string::npos) << Text;
  EXPECT_NE(Text.find("4224 bytes"), std::string::npos) << Text;
  EXPECT_NE(Text.find("32 × 33 × 4 B"), std::string::npos) << Text;
  EXPECT_NE(
      Text.find("| `transpose<32>` | sm_90 | 4224 B | 0 | 4224 B | 227 KiB |"),
      std::string::npos)
      << Text;
  // Nothing to say on a line without shared memory.
  H = result(*C, C->request("textDocument/hover",
                            {{"textDocument", docId(K)},
                             {"position", {{"line", 5}, {"character", 3}}}}));
  EXPECT_TRUE(H.is_null()) << H.dump();

  // The inlay hint sits after the declaration's ';'.
  json Hints =
      result(*C, C->request("textDocument/inlayHint",
                            {{"textDocument", docId(K)},
                             {"range",
                              {{"start", {{"line", 0}, {"character", 0}}},
                               {"end", {{"line", 9}, {"character", 0}}}}}}));
  ASSERT_EQ(Hints.size(), 1u) << Hints.dump();
  EXPECT_EQ(Hints[0]["label"], "4224 B");
  EXPECT_EQ(Hints[0]["position"]["line"], 3);
  EXPECT_EQ(Hints[0]["position"]["character"],
            std::string("  __shared__ float tile[TILE][TILE + 1];").size());

  // The code lens on the kernel.
  json Lenses = result(
      *C, C->request("textDocument/codeLens", {{"textDocument", docId(K)}}));
  ASSERT_EQ(Lenses.size(), 1u) << Lenses.dump();
  EXPECT_EQ(Lenses[0]["range"]["start"]["line"], 1);
  EXPECT_EQ(Lenses[0]["command"]["title"], "transpose<32>: sm_90 4224 B");

  // The outline: the kernel with its footprint, its tile as a child.
  json Symbols = result(*C, C->request("textDocument/documentSymbol",
                                       {{"textDocument", docId(K)}}));
  ASSERT_EQ(Symbols.size(), 1u) << Symbols.dump();
  EXPECT_EQ(Symbols[0]["name"], "transpose<32>");
  EXPECT_EQ(Symbols[0]["kind"], 12);
  EXPECT_EQ(Symbols[0]["detail"], "sm_90 4224 B");
  EXPECT_EQ(Symbols[0]["selectionRange"]["start"]["line"], 1);
  ASSERT_EQ(Symbols[0]["children"].size(), 1u) << Symbols.dump();
  EXPECT_EQ(Symbols[0]["children"][0]["name"], "tile");
  EXPECT_EQ(Symbols[0]["children"][0]["kind"], 13);
  EXPECT_EQ(Symbols[0]["children"][0]["detail"], "float[32][33], 4224 B");
  EXPECT_EQ(Symbols[0]["children"][0]["range"]["start"]["line"], 3);

  // An incremental edit: TILE + 1 becomes TILE * 16, 32 x 512 floats, over the
  // static limit.
  C->notify("textDocument/didChange",
            {{"textDocument", {{"uri", lsp::pathToUri(K)}, {"version", 2}}},
             {"contentChanges",
              json::array({{{"range",
                             {{"start", {{"line", 3}, {"character", 35}}},
                              {"end", {{"line", 3}, {"character", 38}}}}},
                            {"text", "* 16"}}})}});
  P = nextDiagnostics(*C, K);
  EXPECT_EQ(P["version"], 2);
  ASSERT_EQ(P["diagnostics"].size(), 2u) << P.dump();
  // The 512-float rows put the column read in one bank: a warning after the
  // error.
  EXPECT_EQ(P["diagnostics"][1]["code"], "tilefit-bank-conflict") << P.dump();
  json D = P["diagnostics"][0];
  EXPECT_EQ(D["source"], "tilefit");
  EXPECT_EQ(D["code"], "tilefit-static-limit");
  EXPECT_EQ(D["severity"], 1);
  EXPECT_NE(D["codeDescription"]["href"].get<std::string>().find(
                "checks.md#tilefit-static-limit"),
            std::string::npos);
  EXPECT_NE(D["message"].get<std::string>().find("65536 bytes"),
            std::string::npos)
      << D.dump();
  EXPECT_EQ(D["range"]["start"]["line"], 1) << "on the kernel";
  EXPECT_EQ(D["range"]["start"]["character"], 16);
  EXPECT_EQ(D["range"]["end"]["character"], 25);
  bool NoteAtTile = false;
  for (const json &R : D["relatedInformation"])
    NoteAtTile |= R["location"]["range"]["start"]["line"] == 3 &&
                  R["message"].get<std::string>().find(
                      "'tile' takes 65536 bytes") != std::string::npos;
  EXPECT_TRUE(NoteAtTile) << D.dump();

  // The editor's figure is the command line's for the same text.
  std::string Saved = write("saved.cu", [&] {
    std::string T = TransposeKernel;
    T.replace(T.find("TILE + 1"), 8, "TILE * 16");
    return T;
  }());
  json Cli =
      json::parse(runCommand({binary(), "--arch=sm_90", "--no-cuda-toolkit",
                              "--format=json", Saved, "--"},
                             Dir)
                      .Out);
  EXPECT_EQ(Cli["kernels"][0]["static_smem_bytes"], 65536);

  // The quick fix: a NOLINT for the finding's check at the end of its line,
  // which the command line then accepts.
  json Actions = result(
      *C, C->request("textDocument/codeAction",
                     {{"textDocument", docId(K)},
                      {"range", D["range"]},
                      {"context", {{"diagnostics", json::array({D})}}}}));
  ASSERT_EQ(Actions.size(), 1u) << Actions.dump();
  EXPECT_EQ(Actions[0]["kind"], "quickfix");
  const json Edits = Actions[0]["edit"]["changes"][lsp::pathToUri(K)];
  ASSERT_EQ(Edits.size(), 1u) << Actions.dump();
  const std::string KernelLine =
      "__global__ void transpose(const float *in, float *out) {";
  EXPECT_EQ(Edits[0]["range"]["start"]["line"], 1);
  EXPECT_EQ(Edits[0]["range"]["start"]["character"], KernelLine.size());
  EXPECT_EQ(Edits[0]["newText"], " // NOLINT(tilefit-static-limit)");
  std::string Fixed = TransposeKernel;
  Fixed.replace(Fixed.find("TILE + 1"), 8, "TILE * 16");
  Fixed.insert(Fixed.find(KernelLine) + KernelLine.size(),
               Edits[0]["newText"].get<std::string>());
  std::string FixedFile = write("fixed.cu", Fixed);
  CommandResult Accepted = runCommand(
      {binary(), "--arch=sm_90", "--no-cuda-toolkit", FixedFile, "--"}, Dir);
  EXPECT_EQ(Accepted.Status, 0) << Accepted.Out << Accepted.Err;
  EXPECT_EQ(Accepted.Out.find("tilefit-static-limit]"), std::string::npos)
      << Accepted.Out;
  // A diagnostic the server did not place at its own line gets none.
  json Foreign = D;
  Foreign.erase("data");
  EXPECT_TRUE(
      result(*C, C->request(
                     "textDocument/codeAction",
                     {{"textDocument", docId(K)},
                      {"range", D["range"]},
                      {"context", {{"diagnostics", json::array({Foreign})}}}}))
          .empty());

  // Back, by a full replacement of the text: the diagnostic clears.
  C->notify("textDocument/didChange",
            {{"textDocument", {{"uri", lsp::pathToUri(K)}, {"version", 3}}},
             {"contentChanges", json::array({{{"text", TransposeKernel}}})}});
  P = nextDiagnostics(*C, K);
  EXPECT_EQ(P["version"], 3);
  EXPECT_TRUE(P["diagnostics"].empty()) << P.dump();

  C->notify("textDocument/didClose", {{"textDocument", docId(K)}});
  P = nextDiagnostics(*C, K);
  EXPECT_TRUE(P["diagnostics"].empty());
  shutdown(*C);
}

// "What would fit" as an edit: the literal that decides an extent (a constant's
// initializer, an explicit instantiation's argument) becomes the value the
// finding's note names, and the command line then finds that the kernel fits.
TEST_F(LspSession, QuickFixesSetTheLiteralsThatDecideExtentsToWhatFits) {
  const std::string Source = R"(constexpr int STAGES = 5;
template <int ROWS>
__global__ void staged(const float *in, float *out) {
  __shared__ float a[STAGES][ROWS][48];
  a[threadIdx.x % STAGES][threadIdx.x % ROWS][threadIdx.x % 48] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = a[(threadIdx.x + 1) % STAGES][threadIdx.x % ROWS][0];
}
template __global__ void staged<64>(const float *, float *);
)";
  std::string K = write("staged.cu", Source);
  auto C = start({"--arch=sm_90"});
  open(*C, K, Source);
  json P = nextDiagnostics(*C, K);
  ASSERT_EQ(P["diagnostics"].size(), 2u) << P.dump();
  // Its column read of the third extent is a bank conflict too.
  EXPECT_EQ(P["diagnostics"][1]["code"], "tilefit-bank-conflict") << P.dump();
  const json D = P["diagnostics"][0];
  EXPECT_EQ(D["code"], "tilefit-static-limit");
  json Actions = result(
      *C, C->request("textDocument/codeAction",
                     {{"textDocument", docId(K)},
                      {"range", D["range"]},
                      {"context", {{"diagnostics", json::array({D})}}}}));
  std::map<std::string, json> ByTitle;
  for (const json &A : Actions)
    ByTitle[A["title"]] = A;
  ASSERT_EQ(ByTitle.count("Make it fit: set STAGES to 4"), 1u)
      << Actions.dump();
  ASSERT_EQ(ByTitle.count("Make it fit: set ROWS to 32"), 1u) << Actions.dump();
  ASSERT_EQ(Actions.size(), 3u) << "and the NOLINT: " << Actions.dump();
  // Each edit replaces just the literal; the result fits.
  for (const auto &[Title, Literal, Line] :
       {std::tuple<std::string, std::string, unsigned>{
            "Make it fit: set STAGES to 4", "5", 0},
        {"Make it fit: set ROWS to 32", "64", 8}}) {
    SCOPED_TRACE(Title);
    const json A = ByTitle[Title];
    EXPECT_EQ(A["kind"], "quickfix");
    const json Edits = A["edit"]["changes"][lsp::pathToUri(K)];
    ASSERT_EQ(Edits.size(), 1u) << A.dump();
    const json &R = Edits[0]["range"];
    ASSERT_EQ(R["start"]["line"], Line) << A.dump();
    ASSERT_EQ(R["end"]["line"], Line);
    std::vector<std::string> Lines;
    for (size_t B = 0, E; B < Source.size(); B = E + 1) {
      E = Source.find('\n', B);
      Lines.push_back(Source.substr(B, E - B));
    }
    std::string &L = Lines[Line];
    const unsigned From = R["start"]["character"], To = R["end"]["character"];
    EXPECT_EQ(L.substr(From, To - From), Literal) << L;
    L.replace(From, To - From, Edits[0]["newText"].get<std::string>());
    std::string Fixed;
    for (const std::string &X : Lines)
      Fixed += X + "\n";
    CommandResult Fits =
        runCommand({binary(), "--arch=sm_90", "--no-cuda-toolkit",
                    write("fixed.cu", Fixed), "--"},
                   Dir);
    EXPECT_EQ(Fits.Status, 0) << Fixed << Fits.Out << Fits.Err;
    EXPECT_EQ(Fits.Out.find("tilefit-static-limit]"), std::string::npos)
        << Fits.Out;
  }
}

/// \p Text with LSP \p Edits (one file's, UTF-8 columns) applied: the last
/// first, so that earlier positions stay put.
std::string applyEdits(const std::string &Text, const json &Edits) {
  std::vector<size_t> LineStart = {0};
  for (size_t I = 0; I < Text.size(); ++I)
    if (Text[I] == '\n')
      LineStart.push_back(I + 1);
  auto Offset = [&](const json &P) {
    return LineStart.at(P["line"].get<size_t>()) + P["character"].get<size_t>();
  };
  std::vector<std::tuple<size_t, size_t, std::string>> Sorted;
  for (const json &E : Edits)
    Sorted.emplace_back(Offset(E["range"]["start"]), Offset(E["range"]["end"]),
                        E["newText"].get<std::string>());
  std::sort(Sorted.begin(), Sorted.end());
  std::string Out = Text;
  for (auto It = Sorted.rbegin(); It != Sorted.rend(); ++It)
    Out.replace(std::get<0>(*It), std::get<1>(*It) - std::get<0>(*It),
                std::get<2>(*It));
  return Out;
}

// `extern __shared__` as an edit: a kernel template's tile above the static
// limit becomes a view of dynamic shared memory, and each launch of each
// instantiation asks for that instantiation's bytes, with the opt-in before
// it. The command line then finds that both kernels fit, their static part
// gone and the launches' dynamic part their tile's size; ptxas agrees.
TEST_F(LspSession, QuickFixMakesAStaticTileExternSharedWithItsLaunches) {
  const std::string Source = R"(template <typename T, int TILE>
__global__ void transpose(const T *in, T *out) {
  __shared__ T tile[TILE][TILE + 1];
  tile[threadIdx.y][threadIdx.x] = in[threadIdx.y * TILE + threadIdx.x];
  __syncthreads();
  out[threadIdx.x * TILE + threadIdx.y] = tile[threadIdx.x][threadIdx.y];
}

void run(const float *in, float *out, const double *din, double *dout) {
  transpose<float, 128><<<1, dim3(32, 8)>>>(in, out);
  if (in) {
    transpose<double, 96><<<1, dim3(32, 8), 0>>>(din, dout);
  }
}
)";
  std::string K = write("transpose.cu", Source);
  auto C = start({"--arch=sm_90"});
  open(*C, K, Source);
  json P = nextDiagnostics(*C, K);
  ASSERT_EQ(P["diagnostics"].size(), 2u) << P.dump();
  const json D = P["diagnostics"][0];
  EXPECT_EQ(D["code"], "tilefit-static-limit");
  json Actions = result(
      *C, C->request("textDocument/codeAction",
                     {{"textDocument", docId(K)},
                      {"range", D["range"]},
                      {"context", {{"diagnostics", json::array({D})}}}}));
  json Fix;
  for (const json &A : Actions)
    if (A["title"].get<std::string>().find("extern __shared__") !=
        std::string::npos)
      Fix = A;
  ASSERT_TRUE(Fix.is_object()) << Actions.dump();
  EXPECT_EQ(Fix["kind"], "quickfix");
  EXPECT_NE(Fix["title"].get<std::string>().find("at 2 launches"),
            std::string::npos)
      << Fix.dump();
  const json Edits = Fix["edit"]["changes"][lsp::pathToUri(K)];
  ASSERT_EQ(Edits.size(), 5u)
      << "the declaration, and two per launch: " << Fix.dump();
  const std::string Fixed = applyEdits(Source, Edits);
  EXPECT_NE(Fixed.find("extern __shared__"), std::string::npos) << Fixed;
  const std::string FixedFile = write("fixed.cu", Fixed);
  CommandResult R = runCommand({binary(), "--arch=sm_90", "--no-cuda-toolkit",
                                "--format=json", FixedFile, "--"},
                               Dir);
  ASSERT_EQ(R.Status, 0) << Fixed << R.Out << R.Err;
  const json J = json::parse(R.Out);
  // What is left is advice (occupancy remarks), no warning: the launches ask
  // for the bytes, with the opt-in.
  for (const json &D : J["diagnostics"])
    EXPECT_EQ(D["severity"], "remark") << Fixed << D.dump();
  ASSERT_EQ(J["kernels"].size(), 2u) << R.Out;
  std::set<uint64_t> Dynamic;
  for (const json &Kernel : J["kernels"]) {
    EXPECT_EQ(Kernel["static_smem_bytes"], 0u) << Kernel.dump();
    const json &Dyn = Kernel["dynamic_smem"];
    EXPECT_TRUE(Dyn["declared"].get<bool>()) << Kernel.dump();
    ASSERT_EQ(Dyn["launches"].size(), 1u) << Kernel.dump();
    Dynamic.insert(Dyn["launches"][0]["bytes"].get<uint64_t>());
    EXPECT_EQ(Dyn["opt_in_bytes"], Dyn["launches"][0]["bytes"])
        << Kernel.dump();
  }
  // 128 x 129 floats, 96 x 97 doubles.
  EXPECT_EQ(Dynamic, (std::set<uint64_t>{66048, 74496})) << R.Out;
  if (!haveNvcc())
    GTEST_SKIP() << "nvcc is not on PATH: ptxas's figures are not checked";
  PtxasFigures Ptxas = ptxasFigures(FixedFile, {}, {"sm_90"});
  ASSERT_TRUE(Ptxas.Error.empty()) << Fixed << Ptxas.Error;
  ASSERT_EQ(Ptxas.Figures["sm_90"].size(), 2u);
  for (const auto &[Mangled, Bytes] : Ptxas.Figures["sm_90"])
    EXPECT_EQ(Bytes, 0u) << Mangled;
}

TEST_F(LspSession, TheUnsavedBufferIsAnalysedNotTheFile) {
  std::string K = write("k.cu", TransposeKernel);
  std::string Big = TransposeKernel;
  Big.replace(Big.find("TILE + 1"), 8, "TILE * 16");
  auto C = start({"--arch=sm_90"});
  open(*C, K, Big);
  json P = nextDiagnostics(*C, K);
  ASSERT_EQ(P["diagnostics"].size(), 2u)
      << "the disk holds the small tile: " << P.dump();
  // The wide tile's column read is a bank conflict too (tilefit-bank-conflict).
  EXPECT_EQ(P["diagnostics"][1]["code"], "tilefit-bank-conflict") << P.dump();
  // A new file that is not on disk at all.
  std::string New = Dir + "/new/unsaved.cu";
  open(*C, New, TransposeKernel);
  P = nextDiagnostics(*C, New);
  EXPECT_TRUE(P["diagnostics"].empty()) << P.dump();
  json Lenses = result(
      *C, C->request("textDocument/codeLens", {{"textDocument", docId(New)}}));
  ASSERT_EQ(Lenses.size(), 1u) << Lenses.dump();
  shutdown(*C);
}

TEST_F(LspSession, FlagsComeFromTheBuildFoldersDatabaseAndHeadersBorrowThem) {
  // The tile's size is a -D of the build; the architecture is nvcc's -arch.
  const std::string SrcText = "#include \"tile.cuh\"\n"
                              "__global__ void k(float *o) {\n"
                              "  __shared__ float t[TILE];\n"
                              "  t[threadIdx.x] = o[0];\n"
                              "  __syncthreads();\n"
                              "  o[1] = t[threadIdx.x + 1];\n"
                              "}\n";
  const std::string HeaderText = "#pragma once\n"
                                 "__global__ void h(float *o) {\n"
                                 "  __shared__ float u[2 * TILE];\n"
                                 "  u[threadIdx.x] = o[0];\n"
                                 "  __syncthreads();\n"
                                 "  o[1] = u[threadIdx.x + 1];\n"
                                 "}\n";
  std::string Src = write("proj/src/k.cu", SrcText);
  std::string Header = write("proj/src/tile.cuh", HeaderText);
  json Db = json::array(
      {{{"directory", Dir + "/proj/build"},
        {"command", "/usr/local/cuda/bin/nvcc -DTILE=16384 -arch=sm_80 -c " +
                        Src + " -o k.o"},
        {"file", Src}}});
  write("proj/build/compile_commands.json", Db.dump());
  auto C = start();
  open(*C, Src, SrcText);
  json P = nextDiagnostics(*C, Src);
  // 64 KiB in k: over sm_80's static limit; h (in the header, 128 KiB) is shown
  // at the #include.
  std::set<std::string> Where;
  for (const json &D : P["diagnostics"])
    Where.insert(std::to_string(D["range"]["start"]["line"].get<int>()) + ":" +
                 D["code"].get<std::string>());
  EXPECT_TRUE(Where.count("1:tilefit-static-limit")) << P.dump();
  EXPECT_TRUE(Where.count("0:tilefit-static-limit"))
      << "the header's kernel, at the #include: " << P.dump();
  json Lens = result(
      *C, C->request("textDocument/codeLens", {{"textDocument", docId(Src)}}));
  ASSERT_EQ(Lens.size(), 1u);
  EXPECT_NE(Lens[0]["command"]["title"].get<std::string>().find("sm_80 64 KiB"),
            std::string::npos)
      << Lens.dump();

  // The header is not in the database: it borrows k.cu's flags.
  open(*C, Header, HeaderText);
  P = nextDiagnostics(*C, Header);
  ASSERT_EQ(P["diagnostics"].size(), 1u) << P.dump();
  EXPECT_NE(
      P["diagnostics"][0]["message"].get<std::string>().find("131072 bytes"),
      std::string::npos);
  EXPECT_NE(P["diagnostics"][0]["message"].get<std::string>().find("sm_80"),
            std::string::npos);
  EXPECT_EQ(P["diagnostics"][0]["range"]["start"]["line"], 1);
  auto Log = C->waitFor([&](const json &M) {
    return M.value("method", "") == "window/logMessage" &&
           M["params"]["message"].get<std::string>().find(
               "borrowed from " + Src) != std::string::npos;
  });
  EXPECT_TRUE(Log.has_value()) << C->transcript();
  shutdown(*C);
}

/// A header k.cu includes, and k.cu: 256 floats of shared memory.
const char TileHeader[] = "#pragma once\nconstexpr int kTile = 256;\n";
const char TileSource[] =
    "#include \"tile.cuh\"\n__global__ void k(float *o) {\n"
    "  __shared__ float t[kTile];\n  t[threadIdx.x] = o[0];\n"
    "  __syncthreads();\n  o[1] = t[threadIdx.x + 1];\n}\n";

/// The editor replaces \p Path's text (version 2) and saves it.
void editAndSave(LspClient &C, const std::string &Path,
                 const std::string &Text) {
  C.notify("textDocument/didChange",
           {{"textDocument", {{"uri", lsp::pathToUri(Path)}, {"version", 2}}},
            {"contentChanges", json::array({{{"text", Text}}})}});
  C.notify("textDocument/didSave",
           {{"textDocument", {{"uri", lsp::pathToUri(Path)}}}});
}

// As clangd does, the server keeps each file's preamble (its #include block,
// precompiled): an edit below the block reuses it; an edit of a header it
// includes builds it anew.
TEST_F(LspSession, RepeatedAnalysesReuseThePreamble) {
  std::string Header = write("tile.cuh", TileHeader);
  std::string Src = write("k.cu", TileSource);
  auto C = start({"--arch=sm_90"});
  auto Said = [&](const std::string &Text) {
    return C->waitFor([&](const json &M) {
      return M.value("method", "") == "window/logMessage" &&
             M["params"]["message"] ==
                 "tilefit: preambles of " + Src + ": " + Text;
    });
  };
  open(*C, Src, TileSource);
  EXPECT_TRUE(nextDiagnostics(*C, Src)["diagnostics"].empty());
  EXPECT_TRUE(Said("0 reused, 1 built")) << C->transcript();
  // Below the #include block: t grows to 64 KiB + 4, over the static limit.
  C->notify("textDocument/didChange",
            {{"textDocument", {{"uri", lsp::pathToUri(Src)}, {"version", 2}}},
             {"contentChanges",
              json::array({{{"range",
                             {{"start", {{"line", 2}, {"character", 21}}},
                              {"end", {{"line", 2}, {"character", 26}}}}},
                            {"text", "kTile * 64 + 1"}}})}});
  json P = nextDiagnostics(*C, Src);
  ASSERT_EQ(P["diagnostics"].size(), 1u) << P.dump();
  EXPECT_NE(
      P["diagnostics"][0]["message"].get<std::string>().find("65540 bytes"),
      std::string::npos)
      << P.dump();
  EXPECT_TRUE(Said("1 reused, 0 built")) << C->transcript();
  // The header, edited in the editor (unsaved): the preamble is built again and
  // the new constant counts.
  open(*C, Header, TileHeader);
  nextDiagnostics(*C, Header);
  editAndSave(*C, Header, "#pragma once\nconstexpr int kTile = 16;\n");
  P = nextDiagnostics(*C, Src);
  EXPECT_TRUE(P["diagnostics"].empty()) << P.dump();
  EXPECT_TRUE(Said("0 reused, 1 built")) << C->transcript();
  shutdown(*C);
}

TEST_F(LspSession, AnEditOfCommentsMovesTheFindingsWithoutAParse) {
  const std::string Over = [] {
    std::string T = TransposeKernel;
    T.replace(T.find("TILE + 1"), 8, "TILE * 16");
    return T;
  }();
  std::string K = write("k.cu", Over);
  auto C = start({"--arch=sm_90"});
  auto Kept = [&] {
    return C->waitFor([&](const json &M) {
      return M.value("method", "") == "window/logMessage" &&
             M["params"]["message"].get<std::string>().rfind(
                 "tilefit: facts of " + K + " kept", 0) == 0;
    });
  };
  auto Change = [&](int Version, const std::string &Text) {
    C->notify("textDocument/didChange",
              {{"textDocument", {{"uri", lsp::pathToUri(K)}, {"version", Version}}},
               {"contentChanges", json::array({{{"text", Text}}})}});
    json P = nextDiagnostics(*C, K);
    EXPECT_EQ(P["version"], Version);
    return P["diagnostics"];
  };
  /// The static-limit finding's line and its note's at the tile.
  auto Lines = [](const json &Diagnostics) {
    for (const json &D : Diagnostics)
      if (D["code"] == "tilefit-static-limit")
        for (const json &R : D["relatedInformation"])
          if (R["message"].get<std::string>().find("'tile' takes") !=
              std::string::npos)
            return std::make_pair(D["range"]["start"]["line"].get<int>(),
                                  R["location"]["range"]["start"]["line"]
                                      .get<int>());
    return std::make_pair(-1, -1);
  };
  open(*C, K, Over);
  json First = nextDiagnostics(*C, K)["diagnostics"];
  EXPECT_EQ(Lines(First), std::make_pair(1, 3)) << First.dump();

  // Three lines of comment above the kernel, one inside it: no line of code
  // changed, the findings move with their lines.
  std::string Commented = "// Transposes through shared memory.\n/*\n */\n" + Over;
  Commented.insert(Commented.find("  tile[threadIdx.y]"), "  // store\n");
  json Moved = Change(2, Commented);
  EXPECT_TRUE(Kept().has_value()) << C->transcript();
  EXPECT_EQ(Lines(Moved), std::make_pair(4, 6)) << Moved.dump();
  // What a server that never saw the first text publishes for the same one.
  {
    auto Fresh = start({"--arch=sm_90"});
    open(*Fresh, K, Commented);
    EXPECT_EQ(nextDiagnostics(*Fresh, K)["diagnostics"], Moved);
    shutdown(*Fresh);
  }

  // An edit of code is analysed: back under the limit.
  std::string Fixed = Commented;
  Fixed.replace(Fixed.find("TILE * 16"), 9, "TILE + 1");
  EXPECT_EQ(Lines(Change(3, Fixed)), std::make_pair(-1, -1));
  const std::string Log = C->transcript();
  EXPECT_EQ(Log.find("kept from the last analysis"),
            Log.rfind("kept from the last analysis"))
      << "the code edit was parsed: " << Log;
  shutdown(*C);
}

TEST_F(LspSession, SavingAHeaderAnalysesTheFilesThatIncludeIt) {
  std::string Header = write("tile.cuh", TileHeader);
  std::string Src = write("k.cu", TileSource);
  auto C = start({"--arch=sm_90"});
  open(*C, Src, TileSource);
  EXPECT_TRUE(nextDiagnostics(*C, Src)["diagnostics"].empty());
  open(*C, Header, TileHeader);
  nextDiagnostics(*C, Header);
  // The header's new constant, unsaved on disk, reaches k.cu when the editor
  // saves it.
  editAndSave(*C, Header, "#pragma once\nconstexpr int kTile = 16384;\n");
  json P = nextDiagnostics(*C, Src);
  ASSERT_EQ(P["diagnostics"].size(), 1u) << P.dump();
  EXPECT_NE(
      P["diagnostics"][0]["message"].get<std::string>().find("65536 bytes"),
      std::string::npos);
  shutdown(*C);
}

TEST_F(LspSession, CompileCommandsDirAndConfigurationChanges) {
  std::string Src = write(
      "src/k.cu", "__global__ void k(float *o) {\n  __shared__ float t[TILE];\n"
                  "  t[threadIdx.x] = o[0];\n  __syncthreads();\n  o[1] = "
                  "t[threadIdx.x + 1];\n}\n");
  write("elsewhere/compile_commands.json",
        json::array({{{"directory", Dir},
                      {"arguments",
                       {"clang++", "-x", "cuda", "--cuda-gpu-arch=sm_90",
                        "-DTILE=1024", "-c", Src}},
                      {"file", Src}}})
            .dump());
  auto C = start({"--compile-commands-dir=" + Dir + "/elsewhere"});
  std::string Text =
      "__global__ void k(float *o) {\n  __shared__ float t[TILE];\n"
      "  t[threadIdx.x] = o[0];\n  __syncthreads();\n  o[1] = t[threadIdx.x + "
      "1];\n}\n";
  open(*C, Src, Text);
  json P = nextDiagnostics(*C, Src);
  EXPECT_TRUE(P["diagnostics"].empty()) << P.dump();
  json Hints =
      result(*C, C->request("textDocument/inlayHint",
                            {{"textDocument", docId(Src)},
                             {"range",
                              {{"start", {{"line", 0}, {"character", 0}}},
                               {"end", {{"line", 6}, {"character", 0}}}}}}));
  ASSERT_EQ(Hints.size(), 1u);
  EXPECT_EQ(Hints[0]["label"], "4 KiB")
      << "TILE=1024 from the database in --compile-commands-dir";

  // A tighter budget from the editor's settings: the budget warning appears.
  C->notify("workspace/didChangeConfiguration",
            {{"settings", {{"tilefit", {{"budget", 0.01}}}}}});
  P = nextDiagnostics(*C, Src);
  ASSERT_EQ(P["diagnostics"].size(), 1u) << P.dump();
  EXPECT_EQ(P["diagnostics"][0]["code"], "tilefit-budget");
  EXPECT_EQ(P["diagnostics"][0]["severity"], 2);

  // A capacity database that cannot be read: the run cannot start, and the file
  // says so at its first line.
  C->notify("workspace/didChangeConfiguration",
            {{"settings",
              {{"tilefit", {{"capacityDatabase", Dir + "/missing.json"}}}}}});
  P = nextDiagnostics(*C, Src);
  ASSERT_EQ(P["diagnostics"].size(), 1u) << P.dump();
  EXPECT_EQ(P["diagnostics"][0]["code"], "tilefit-input");
  EXPECT_EQ(P["diagnostics"][0]["severity"], 1);
  EXPECT_EQ(P["diagnostics"][0]["range"]["start"]["line"], 0);
  EXPECT_NE(
      P["diagnostics"][0]["message"].get<std::string>().find("missing.json"),
      std::string::npos)
      << P.dump();
  shutdown(*C);
}

TEST_F(LspSession, ANewerEditWinsAndRequestsWaitForIt) {
  std::string K = write("k.cu", TransposeKernel);
  auto C = start({"--arch=sm_90"});
  open(*C, K, TransposeKernel);
  nextDiagnostics(*C, K);
  // Five quick edits; only the last text matters.
  std::string Text = TransposeKernel;
  for (int V = 2; V <= 6; ++V) {
    std::string T = Text;
    T.replace(T.find("TILE + 1"), 8, "TILE + " + std::to_string(V));
    C->notify("textDocument/didChange",
              {{"textDocument", {{"uri", lsp::pathToUri(K)}, {"version", V}}},
               {"contentChanges", json::array({{{"text", T}}})}});
  }
  // A hover sent now is answered from the analysis of version 6: 32 x 38
  // floats.
  json H =
      result(*C, C->request("textDocument/hover",
                            {{"textDocument", docId(K)},
                             {"position", {{"line", 3}, {"character", 20}}}}));
  ASSERT_TRUE(H.is_object());
  EXPECT_NE(H["contents"]["value"].get<std::string>().find("float[32][38]"),
            std::string::npos)
      << H.dump();
  // Publications arrive in version order and end with version 6.
  int Last = 1;
  while (auto M = C->diagnostics(lsp::pathToUri(K), std::chrono::seconds(2))) {
    int V = (*M)["params"]["version"];
    EXPECT_GT(V, Last);
    Last = V;
  }
  EXPECT_EQ(Last, 6);
  shutdown(*C);
}

TEST_F(LspSession, ProtocolErrorsAreAnsweredNotFatal) {
  auto C = std::make_unique<LspClient>(
      std::vector<std::string>{binary(), "lsp", "--no-cuda-toolkit"}, Dir);
  // Before initialize: ServerNotInitialized.
  int Id = C->request("textDocument/hover", json::object());
  auto R = C->response(Id);
  ASSERT_TRUE(R.has_value());
  EXPECT_EQ((*R)["error"]["code"], -32002);

  Id = C->request("initialize", {{"capabilities", json::object()}});
  ASSERT_TRUE(C->response(Id).has_value());
  Id = C->request("initialize", {{"capabilities", json::object()}});
  EXPECT_EQ((*C->response(Id))["error"]["code"], -32600)
      << "a second initialize";

  // Unknown method; unknown notifications are ignored.
  C->notify("$/unknownNotification", json::object());
  Id = C->request("workspace/symbol", {{"query", "x"}});
  EXPECT_EQ((*C->response(Id))["error"]["code"], -32601);

  // Not JSON; JSON that is not an object; a header without Content-Length.
  C->sendRaw("Content-Length: 7\r\n\r\n{oops!}");
  auto E = C->waitFor(
      [](const json &M) { return M.contains("error") && M["id"].is_null(); });
  ASSERT_TRUE(E.has_value());
  EXPECT_EQ((*E)["error"]["code"], -32700);
  C->sendRaw("Content-Length: 2\r\n\r\n[]");
  E = C->waitFor(
      [](const json &M) { return M.contains("error") && M["id"].is_null(); });
  ASSERT_TRUE(E.has_value());
  EXPECT_EQ((*E)["error"]["code"], -32600);
  C->sendRaw("Content-Type: application/vscode-jsonrpc\r\n\r\n");
  E = C->waitFor(
      [](const json &M) { return M.contains("error") && M["id"].is_null(); });
  ASSERT_TRUE(E.has_value());
  EXPECT_EQ((*E)["error"]["code"], -32600);

  // Missing or malformed parameters: InvalidParams.
  Id = C->request("textDocument/hover",
                  {{"textDocument", {{"uri", "file:///x.cu"}}}});
  EXPECT_EQ((*C->response(Id))["error"]["code"], -32602) << "no position";
  Id = C->request("textDocument/codeLens", {{"textDocument", {{"uri", 42}}}});
  EXPECT_EQ((*C->response(Id))["error"]["code"], -32602);
  Id = C->request("textDocument/codeLens",
                  {{"textDocument", {{"uri", "http://example.com/k.cu"}}}});
  EXPECT_EQ((*C->response(Id))["error"]["code"], -32602);

  // A request that waits (a long debounce) can be cancelled.
  std::string K = write("k.cu", TransposeKernel);
  C->notify("textDocument/didOpen", {{"textDocument",
                                      {{"uri", lsp::pathToUri(K)},
                                       {"languageId", "cuda"},
                                       {"version", 1},
                                       {"text", TransposeKernel}}}});
  ASSERT_TRUE(C->diagnostics(lsp::pathToUri(K)).has_value());
  C->notify("textDocument/didChange",
            {{"textDocument", {{"uri", lsp::pathToUri(K)}, {"version", 2}}},
             {"contentChanges", json::array({{{"text", TransposeKernel}}})}});
  Id = C->request("textDocument/codeLens",
                  {{"textDocument", {{"uri", lsp::pathToUri(K)}}}});
  C->notify("$/cancelRequest", {{"id", Id}});
  R = C->response(Id);
  ASSERT_TRUE(R.has_value()) << C->transcript();
  EXPECT_EQ((*R)["error"]["code"], -32800) << R->dump();

  // Still serving; then exit without shutdown: status 1.
  Id = C->request("textDocument/codeLens",
                  {{"textDocument", {{"uri", lsp::pathToUri(K)}}}});
  R = C->response(Id);
  ASSERT_TRUE(R.has_value());
  EXPECT_EQ((*R)["result"].size(), 1u);
  C->notify("exit", nullptr);
  EXPECT_EQ(C->finish(), 1);
}

TEST_F(LspSession, RequestsAfterShutdownAndTheEndOfInput) {
  auto C = start();
  int Id = C->request("shutdown", nullptr);
  ASSERT_TRUE(C->response(Id).has_value());
  Id = C->request("textDocument/codeLens",
                  {{"textDocument", {{"uri", "file:///x.cu"}}}});
  EXPECT_EQ((*C->response(Id))["error"]["code"], -32600);
  // The input ends without exit: the server stops (status 0: shutdown was
  // asked).
  EXPECT_EQ(C->finish(), 0);
}

TEST_F(LspSession, PositionsInUtf16AndUtf8) {
  // Two-byte and four-byte characters before the declaration: UTF-16 counts 1
  // and 2 units.
  std::string Text = "__global__ void k(float *o) {\n"
                     "  /* é😀 */ __shared__ float t[256];\n"
                     "  t[threadIdx.x] = o[0];\n  __syncthreads();\n  o[1] = "
                     "t[threadIdx.x + 1];\n}\n";
  std::string K = write("k.cu", Text);
  json Range = {{"start", {{"line", 0}, {"character", 0}}},
                {"end", {{"line", 9}, {"character", 0}}}};
  for (bool Utf8 : {false, true}) {
    json Caps = {{"general",
                  {{"positionEncodings", Utf8 ? json::array({"utf-8", "utf-16"})
                                              : json::array({"utf-16"})}}}};
    auto C = start({"--arch=sm_90"}, Caps);
    EXPECT_EQ(InitResult["capabilities"]["positionEncoding"],
              Utf8 ? "utf-8" : "utf-16");
    open(*C, K, Text);
    nextDiagnostics(*C, K);
    json Hints =
        result(*C, C->request("textDocument/inlayHint",
                              {{"textDocument", docId(K)}, {"range", Range}}));
    ASSERT_EQ(Hints.size(), 1u);
    std::string Line = "  /* é😀 */ __shared__ float t[256];";
    // UTF-16: é is 1 unit, 😀 is 2; UTF-8: bytes.
    size_t Expected = Utf8 ? Line.size() : Line.size() - 1 - 2;
    EXPECT_EQ(Hints[0]["position"]["character"], Expected);
    // An incremental edit addressed in the same encoding: 256 becomes 512.
    unsigned At =
        static_cast<unsigned>(Utf8 ? Line.find("256") : Line.find("256") - 3);
    C->notify("textDocument/didChange",
              {{"textDocument", {{"uri", lsp::pathToUri(K)}, {"version", 2}}},
               {"contentChanges",
                json::array({{{"range",
                               {{"start", {{"line", 1}, {"character", At}}},
                                {"end", {{"line", 1}, {"character", At + 3}}}}},
                              {"text", "512"}}})}});
    nextDiagnostics(*C, K);
    Hints =
        result(*C, C->request("textDocument/inlayHint",
                              {{"textDocument", docId(K)}, {"range", Range}}));
    ASSERT_EQ(Hints.size(), 1u);
    EXPECT_EQ(Hints[0]["label"], "2 KiB") << "the edit landed on 256";
    shutdown(*C);
  }
}

} // namespace
} // namespace test
} // namespace tilefit
