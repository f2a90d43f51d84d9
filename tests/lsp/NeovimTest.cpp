//===- NeovimTest.cpp - A real editor's LSP client against tilefit lsp ----===//
//
// Neovim, headless, runs the set-up the README gives (taken from README.md
// itself, so the README works as written), opens a CUDA file, and writes down
// the diagnostics and the hover its built-in LSP client received from `tilefit
// lsp`.
//
//===----------------------------------------------------------------------===//
#include "../support/TestSupport.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

namespace tilefit {
namespace test {
namespace {

/// The Lua block after `<!-- neovim-setup -->` in README.md.
std::string readmeNeovimSetup() {
  auto Buf = llvm::MemoryBuffer::getFile(sourceDir() + "/README.md");
  if (!Buf)
    return "";
  std::string Text = (*Buf)->getBuffer().str();
  size_t Marker = Text.find("<!-- neovim-setup -->");
  if (Marker == std::string::npos)
    return "";
  size_t Start = Text.find("```lua\n", Marker);
  size_t End = Text.find("```\n", Start + 7);
  if (Start == std::string::npos || End == std::string::npos)
    return "";
  return Text.substr(Start + 7, End - Start - 7);
}

const char *CheckScript = R"lua(
local out = os.getenv('TILEFIT_NVIM_OUT')
local got = vim.wait(120000, function() return #vim.diagnostic.get(0) > 0 end, 100)
local result = { filetype = vim.bo.filetype, received = got, diagnostics = {}, hover = {} }
for _, d in ipairs(vim.diagnostic.get(0)) do
  local lsp = (d.user_data or {}).lsp or {}
  table.insert(result.diagnostics, { lnum = d.lnum, col = d.col, message = d.message,
    source = d.source, severity = d.severity, code = d.code or lsp.code })
end
local params = { textDocument = vim.lsp.util.make_text_document_params(),
                 position = { line = 3, character = 20 } }
for _, r in pairs(vim.lsp.buf_request_sync(0, 'textDocument/hover', params, 60000) or {}) do
  if r.result then table.insert(result.hover, r.result.contents.value) end
end
local f = io.open(out, 'w'); f:write(vim.fn.json_encode(result)); f:close()
vim.cmd('qa!')
)lua";

class Neovim : public TempDirTest {};

TEST_F(Neovim, ReceivesTilefitsDiagnosticsAndHover) {
  auto Nvim = llvm::sys::findProgramByName("nvim");
  if (!Nvim)
    GTEST_SKIP()
        << "nvim is not installed (scripts/setup.sh installs Debian's neovim)";
  std::string Setup = readmeNeovimSetup();
  ASSERT_FALSE(Setup.empty())
      << "README.md has no Lua block after <!-- neovim-setup -->";
  std::string Init = write("init.lua", Setup);
  std::string Check = write("check.lua", CheckScript);
  std::string K = write("k.cu", R"(template <int TILE>
__global__ void transpose(const float *in, float *out) {
  // 32 x 512 floats: 64 KiB, over the static limit
  __shared__ float tile[TILE][TILE * 16];
  tile[threadIdx.y][threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}
template __global__ void transpose<32>(const float *, float *);
)");
  std::string Out = Dir + "/out.json";
  // As a user would have it: tilefit on PATH.
  std::string Path = std::string(llvm::sys::path::parent_path(binary())) + ":" +
                     (getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
  CommandResult R = runCommand(
      {"/usr/bin/env", "PATH=" + Path, "TILEFIT_NVIM_OUT=" + Out, "timeout",
       "300", *Nvim, "--headless", "-u", Init, "-c", "luafile " + Check, K},
      Dir);
  ASSERT_EQ(R.Status, 0) << R.Out << R.Err;
  auto Buf = llvm::MemoryBuffer::getFile(Out);
  ASSERT_TRUE(static_cast<bool>(Buf))
      << "Neovim wrote no result: " << R.Out << R.Err;
  nlohmann::json J = nlohmann::json::parse((*Buf)->getBuffer().str());
  EXPECT_EQ(J["filetype"], "cuda");
  ASSERT_EQ(J["received"], true) << J.dump();
  // The error, and the warning for the wide tile's column read.
  ASSERT_EQ(J["diagnostics"].size(), 2u) << J.dump();
  EXPECT_EQ(J["diagnostics"][1]["code"], "tilefit-bank-conflict") << J.dump();
  const nlohmann::json &D = J["diagnostics"][0];
  EXPECT_EQ(D["source"], "tilefit");
  EXPECT_EQ(D["code"], "tilefit-static-limit");
  EXPECT_EQ(D["severity"], 1);
  EXPECT_EQ(D["lnum"], 1);
  EXPECT_EQ(D["col"], 16);
  EXPECT_NE(D["message"].get<std::string>().find("65536 bytes"),
            std::string::npos)
      << D.dump();
  ASSERT_EQ(J["hover"].size(), 1u) << J.dump();
  EXPECT_NE(J["hover"][0].get<std::string>().find("float[32][512]"),
            std::string::npos);
}

} // namespace
} // namespace test
} // namespace tilefit
