//===- CompileCommandTest.cpp - Reading compilation databases -------------===//
#include "tilefit/frontend/CompileCommand.h"
#include "../support/TestSupport.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <sys/stat.h>

namespace tilefit {
namespace frontend {
namespace {

using CompileCommandTest = test::TempDirTest;

TEST_F(CompileCommandTest, CommandAndArgumentsForms) {
  write("compile_commands.json", R"([
    {"directory": "/b", "command": "nvcc -DA=\"x y\" -c ../src/a.cu -o a.o", "file": "../src/a.cu"},
    {"directory": "/b", "arguments": ["clang++", "-c", "/s/b.cu"], "file": "/s/b.cu"}])");
  std::vector<std::string> Warnings;
  auto Db = loadCompilationDatabase(Dir, Warnings);
  ASSERT_TRUE(static_cast<bool>(Db)) << llvm::toString(Db.takeError());
  ASSERT_EQ(Db->size(), 2u);
  EXPECT_EQ((*Db)[0].File, "/src/a.cu");
  EXPECT_EQ((*Db)[0].Directory, "/b");
  EXPECT_EQ((*Db)[0].Arguments,
            (std::vector<std::string>{"nvcc", "-DA=x y", "-c", "../src/a.cu",
                                      "-o", "a.o"}));
  EXPECT_EQ((*Db)[1].Arguments.front(), "clang++");
  EXPECT_TRUE(Warnings.empty());
}

TEST_F(CompileCommandTest, RelativeDirectoryIsTakenFromTheDatabaseFolder) {
  std::string P = write(
      "build/compile_commands.json",
      R"([{"directory": ".", "command": "nvcc -c k.cu", "file": "k.cu"}])");
  std::vector<std::string> Warnings;
  auto Db = loadCompilationDatabase(P, Warnings);
  ASSERT_TRUE(static_cast<bool>(Db));
  ASSERT_EQ(Db->size(), 1u);
  EXPECT_EQ((*Db)[0].Directory, Dir + "/build");
  EXPECT_EQ((*Db)[0].File, Dir + "/build/k.cu");
}

TEST_F(CompileCommandTest, BadEntriesAreSkippedWithAMessage) {
  write("compile_commands.json", R"([
    {"directory": "/b", "file": "a.cu"},
    {"command": "nvcc a.cu", "file": "a.cu"},
    {"directory": "/b", "arguments": ["nvcc", 3], "file": "a.cu"},
    7,
    {"directory": "/b", "command": "nvcc -c ok.cu", "file": "ok.cu"}])");
  std::vector<std::string> Warnings;
  auto Db = loadCompilationDatabase(Dir, Warnings);
  ASSERT_TRUE(static_cast<bool>(Db));
  EXPECT_EQ(Db->size(), 1u);
  ASSERT_EQ(Warnings.size(), 4u);
  EXPECT_NE(Warnings[0].find("entry 1: neither \"arguments\" nor \"command\""),
            std::string::npos)
      << Warnings[0];
  EXPECT_NE(Warnings[1].find("entry 2: no \"directory\""), std::string::npos)
      << Warnings[1];
  EXPECT_NE(Warnings[3].find("entry 4: not an object"), std::string::npos)
      << Warnings[3];
}

TEST_F(CompileCommandTest, MalformedFilesAreErrors) {
  std::vector<std::string> Warnings;
  write("compile_commands.json", "[\n  {\"directory\": \"/b\",,}\n]");
  auto Db = loadCompilationDatabase(Dir, Warnings);
  ASSERT_FALSE(static_cast<bool>(Db));
  std::string E = llvm::toString(Db.takeError());
  EXPECT_NE(E.find("compile_commands.json:2:"), std::string::npos) << E;
  EXPECT_NE(E.find("not valid JSON"), std::string::npos) << E;

  write("compile_commands.json", R"({"not": "an array"})");
  Db = loadCompilationDatabase(Dir, Warnings);
  ASSERT_FALSE(static_cast<bool>(Db));
  EXPECT_NE(llvm::toString(Db.takeError()).find("JSON array"),
            std::string::npos);

  Db = loadCompilationDatabase(Dir + "/missing", Warnings);
  ASSERT_FALSE(static_cast<bool>(Db));
  EXPECT_NE(llvm::toString(Db.takeError()).find("cannot read"),
            std::string::npos);
}

TEST_F(CompileCommandTest, ResponseFilesAreExpandedRelativeToTheDirectory) {
  write("build/flags.rsp", "-I inc -DA=1 @more.rsp");
  write("build/more.rsp", "\"-DB=two words\"");
  write("build/opts1.txt", "-std=c++17");
  write("build/opts2.txt", "-arch=sm_90");
  CompileCommand C;
  C.Directory = Dir + "/build";
  C.File = Dir + "/k.cu";
  C.Origin = "test";
  C.Arguments = {"nvcc", "@flags.rsp", "--options-file", "opts1.txt,opts2.txt",
                 "-c",   C.File};
  ASSERT_FALSE(static_cast<bool>(expandResponseFiles(C)));
  EXPECT_EQ(C.Arguments, (std::vector<std::string>{
                             "nvcc", "-I", "inc", "-DA=1", "-DB=two words",
                             "-std=c++17", "-arch=sm_90", "-c", C.File}));
}

TEST_F(CompileCommandTest, MissingOrRecursiveResponseFilesAreErrors) {
  CompileCommand C;
  C.Directory = Dir;
  C.Origin = "db.json, entry 1";
  C.Arguments = {"nvcc", "@missing.rsp"};
  llvm::Error E = expandResponseFiles(C);
  ASSERT_TRUE(static_cast<bool>(E));
  std::string Msg = llvm::toString(std::move(E));
  EXPECT_NE(Msg.find("db.json, entry 1"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("missing.rsp"), std::string::npos) << Msg;

  write("loop.rsp", "@loop.rsp");
  C.Arguments = {"nvcc", "@loop.rsp"};
  E = expandResponseFiles(C);
  ASSERT_TRUE(static_cast<bool>(E));
  EXPECT_NE(llvm::toString(std::move(E)).find("nested"), std::string::npos);
}

TEST_F(CompileCommandTest, ResponseFilesThatAreNotRegularFilesAreErrors) {
  // A device that never ends and a FIFO that blocks until a writer comes:
  // neither is read.
  CompileCommand C;
  C.Directory = Dir;
  C.Origin = "db.json, entry 1";
  std::string Fifo = Dir + "/args.fifo";
  ASSERT_EQ(::mkfifo(Fifo.c_str(), 0600), 0);
  for (const std::string &Rsp : {std::string("/dev/zero"), Fifo, Dir}) {
    C.Arguments = {"nvcc", "@" + Rsp};
    llvm::Error E = expandResponseFiles(C);
    ASSERT_TRUE(static_cast<bool>(E)) << Rsp;
    std::string Msg = llvm::toString(std::move(E));
    EXPECT_NE(Msg.find("not a regular file"), std::string::npos) << Msg;
  }
}

TEST_F(CompileCommandTest, FoundAboveASource) {
  write("compile_commands.json", "[]");
  write("a/b/k.cu", "");
  EXPECT_EQ(findCompilationDatabaseAbove(Dir + "/a/b"),
            Dir + "/compile_commands.json");
  // clangd's rule, for the command line and the editor alike: a folder's build/
  // too, the nearest first.
  write("a/build/compile_commands.json", "[]");
  EXPECT_EQ(findCompilationDatabaseAbove(Dir + "/a/b"),
            Dir + "/a/build/compile_commands.json");
  write("a/b/compile_commands.json", "[]");
  EXPECT_EQ(findCompilationDatabaseAbove(Dir + "/a/b"),
            Dir + "/a/b/compile_commands.json");
}

TEST(SplitCommandLineTest, ShellQuoting) {
  EXPECT_EQ(splitCommandLine(R"(nvcc "-DA=a b" 'x y' -I\ dir)"),
            (std::vector<std::string>{"nvcc", "-DA=a b", "x y", "-I dir"}));
}

TEST(JoinCommandLineTest, ReadsBackAsTheSameArguments) {
  // What --show-parse-commands prints: every parse defines a macro whose value
  // holds spaces and parentheses.
  std::vector<std::string> Args = {
      "clang++",
      "-D__tf_rsh__=register __attribute__((shared))",
      "-I/a dir/include",
      "it's",
      "$HOME",
      "a\\b",
      "-DX=\"q\"",
      "`x`",
      "-fsyntax-only"};
  const std::string Line = joinCommandLine(Args);
  EXPECT_EQ(splitCommandLine(Line), Args);
  // A POSIX shell reads the same arguments (an empty one too).
  Args.push_back("");
  test::CommandResult Sh = test::runCommand(
      {"/bin/sh", "-c", "printf '%s\\n' " + joinCommandLine(Args)});
  ASSERT_EQ(Sh.Status, 0) << Sh.Err;
  std::string Expected;
  for (const std::string &A : Args)
    Expected += A + "\n";
  EXPECT_EQ(Sh.Out, Expected);
  EXPECT_EQ(joinCommandLine(
                {"clang++", "-x", "cuda", "-DN=4", "--cuda-gpu-arch=sm_90"}),
            "clang++ -x cuda -DN=4 --cuda-gpu-arch=sm_90");
  EXPECT_EQ(joinCommandLine({"-DA=a b", "$x"}), "\"-DA=a b\" \"\\$x\"");
}

} // namespace
} // namespace frontend
} // namespace tilefit
