//===- FactsMemoTest.cpp - Facts kept for edits that change no code -------===//
//
// The language server answers an edit that changes no line of code (comments,
// blank lines) with the facts of the last parse, each position moved to its new
// line. Every answer here is checked against a plain parse of the edited text,
// under C++17 and C++20: the facts must be the same, byte for byte. An edit the
// memo cannot vouch for is parsed.
//
//===----------------------------------------------------------------------===//
#include "../support/TestSupport.h"

#include "tilefit/frontend/FactsMemo.h"
#include "tilefit/model/Analysis.h"
#include "tilefit/model/FactsJson.h"

#include "llvm/Support/FileSystem.h"

#include <algorithm>

namespace tilefit {
namespace frontend {
namespace {

TEST(CodeLines, CommentsAndBlankLinesAreNotCode) {
  const std::string Text = "// a comment\n"                  // 1
                           "\n"                              // 2
                           "int a; // after code\n"          // 3
                           "/* a block\n"                    // 4
                           "   of lines */\n"                // 5
                           "#if 0\n"                         // 6
                           "skipped tokens are code\n"       // 7
                           "#endif\n"                        // 8
                           "const char *r = R\"(\n"          // 9
                           "// inside a raw string\n"        // 10
                           ")\";\n"                          // 11
                           "// tilefit-dynamic-smem: 4 KiB\n" // 12
                           "  // NOLINTNEXTLINE\n"           // 13
                           "   \t\n"                         // 14
                           "int b; /* x */ int c;\n"         // 15
                           "/* y */ int d;\n";               // 16
  EXPECT_EQ(codeLines(Text),
            (std::vector<unsigned>{3, 6, 7, 8, 9, 10, 11, 12, 13, 15, 16}));
}

const char *const Header = R"(#pragma once
template <int N> __device__ float staged(const float *p) {
  __shared__ float h[N];
  h[threadIdx.x % N] = p[threadIdx.x];
  __syncthreads();
  return h[0];
}
)";

/// The unit, with \p Gap (comment or blank lines) put at each marked place.
std::string unit(const std::string &Gap) {
  return "#include \"h.cuh\"\n" + Gap + R"(// Kernels.
__global__ void in_main(float *o) {
)" + Gap + R"(  __shared__ float mine[3];
  mine[threadIdx.x % 3] = o[0];
  o[threadIdx.x] = mine[0] + staged<8>(o);
}
template <int N> __global__ void tiled(float *o) {
  __shared__ double t[N];
)" + Gap + R"(  t[threadIdx.x % N] = o[0];
  __syncthreads();
  o[threadIdx.x] = t[0];
}
void host(float *o, int bytes) {
  tiled<4><<<1, 32, 128>>>(o);
)" + Gap + R"(  // tilefit-dynamic-smem: 2 KiB
  in_main<<<1, 32, bytes>>>(o);
}
#ifndef __CUDA_ARCH__
void host_only(float *o) {
)" + Gap + R"(  tiled<16><<<2, 64>>>(o);
}
#endif
)";
}

class FactsMemoTest : public test::TempDirTest,
                      public ::testing::WithParamInterface<std::string> {
protected:
  void SetUp() override {
    TempDirTest::SetUp();
    HeaderPath = write("h.cuh", Header);
    MainPath = write("main.cu", unit(""));
    Env = test::environmentWithoutPch();
    Env.Memo = &Memo;
  }

  std::vector<std::string> flags() const {
    return {GetParam().empty() ? "-std=c++17" : GetParam()};
  }

  /// The facts of a parse with \p E, as JSON, one unit per architecture.
  std::vector<std::string> facts(const ParseEnvironment &E) {
    std::vector<std::string> Out;
    for (const TranslationUnitFacts &TU :
         test::parseFile(MainPath, flags(), Archs, E)) {
      EXPECT_FALSE(TU.Failed);
      Out.push_back(factsToJson(TU));
    }
    return Out;
  }

  /// The facts with the memo, which must be the plain parse's; whether the
  /// memo answered.
  bool answered(std::vector<std::string> *Out = nullptr) {
    ParseEnvironment Plain = Env;
    Plain.Memo = nullptr;
    const unsigned Before = Memo.hits();
    std::vector<std::string> With = facts(Env);
    const bool Hit = Memo.hits() > Before;
    std::vector<std::string> Without = facts(Plain);
    EXPECT_EQ(With, Without) << (Hit ? "from the memo" : "parsed");
    if (Out)
      *Out = std::move(Without);
    return Hit;
  }

  FactsMemo Memo;
  ParseEnvironment Env;
  /// One architecture is enough to tell a hit from a parse (each has its own
  /// command and memo entry).
  std::vector<std::string> Archs{"sm_90"};
  std::string HeaderPath, MainPath;
};

TEST_P(FactsMemoTest, CommentAndBlankLinesAreAnsweredAsAPlainParseWould) {
  Archs = {"sm_80", "sm_90"};
  std::vector<std::string> First;
  EXPECT_FALSE(answered(&First));
  Env.Unsaved[MainPath] = unit("// a note\n\n/* and\n   more */\n");
  std::vector<std::string> Moved;
  EXPECT_TRUE(answered(&Moved));
  EXPECT_EQ(Memo.hits(), 2u) << "one per architecture";
  EXPECT_NE(First, Moved) << "the positions after the new lines moved";
  // Lines taken out again, a blank line left in each place.
  Env.Unsaved[MainPath] = unit("\n");
  EXPECT_TRUE(answered());
  EXPECT_EQ(Memo.hits(), 4u);
}

TEST_P(FactsMemoTest, ACodeEditIsParsed) {
  answered();
  std::string Text = unit("");
  Text.replace(Text.find("mine[3]"), 7, "mine[5]");
  Env.Unsaved[MainPath] = Text;
  std::vector<std::string> After;
  EXPECT_FALSE(answered(&After));
  EXPECT_NE(After[0].find("\"mine\""), std::string::npos);
  // Code put on a comment's line.
  Text = unit("");
  Text.replace(Text.find("// Kernels."), 11, "int x; // Kernels.");
  Env.Unsaved[MainPath] = Text;
  EXPECT_FALSE(answered());
}

TEST_P(FactsMemoTest, ACommentAfterCodeOnItsLineIsNotCode) {
  answered();
  const std::string Line = "  __shared__ float mine[3];";
  std::string Text = unit("");
  Text.replace(Text.find(Line), Line.size(),
               Line + "   // three floats /* and a note\n/* over\n   lines */");
  Env.Unsaved[MainPath] = Text;
  EXPECT_TRUE(answered());
  // A comment before the code moves its columns.
  Text = unit("");
  Text.replace(Text.find(Line), Line.size(), "/* 3 */" + Line);
  Env.Unsaved[MainPath] = Text;
  EXPECT_FALSE(answered());
}

TEST_P(FactsMemoTest, AToolCommentIsCode) {
  answered();
  std::string Text = unit("");
  Text.replace(Text.find("2 KiB"), 5, "3 KiB");
  Env.Unsaved[MainPath] = Text;
  std::vector<std::string> After;
  EXPECT_FALSE(answered(&After));
  EXPECT_NE(After[0].find("3072"), std::string::npos)
      << "the stated size is a fact: " << After[0];
}

TEST_P(FactsMemoTest, ALineBetweenAToolCommentAndItsLaunchIsParsed) {
  std::vector<std::string> Stated;
  answered(&Stated);
  std::string Text = unit("");
  Text.insert(Text.find("  in_main<<<"), "\n");
  Env.Unsaved[MainPath] = Text;
  std::vector<std::string> Apart;
  EXPECT_FALSE(answered(&Apart));
  EXPECT_NE(Stated[0].find("2048"), std::string::npos) << Stated[0];
  EXPECT_EQ(Apart[0].find("2048"), std::string::npos)
      << "the comment no longer speaks of the launch: " << Apart[0];
  // Taken out again: together as first.
  Env.Unsaved[MainPath] = unit("");
  EXPECT_FALSE(answered());
}

TEST_P(FactsMemoTest, ALineSplicedToTheNextIsKeptWithIt) {
  const std::string Spliced = unit("") + "#define ROWS \\\n"
                                         "  12\n"
                                         "__global__ void rows(float *o) {\n"
                                         "  __shared__ float r[ROWS];\n"
                                         "  r[threadIdx.x % ROWS] = o[0];\n"
                                         "  o[threadIdx.x] = r[1];\n"
                                         "}\n";
  Env.Unsaved[MainPath] = Spliced;
  std::vector<std::string> First;
  answered(&First);
  EXPECT_NE(First[0].find("\"r\""), std::string::npos);
  // A comment put after the backslash's line ends the macro there: ROWS is
  // empty, and `r[]` an error.
  std::string Cut = Spliced;
  Cut.insert(Cut.find("  12\n"), "// cut\n");
  Env.Unsaved[MainPath] = Cut;
  const unsigned Before = Memo.hits();
  test::parseFile(MainPath, flags(), {"sm_80"}, Env);
  EXPECT_EQ(Memo.hits(), Before);
}

TEST_P(FactsMemoTest, LineNumbersInTheCodeAreNotKept) {
  std::string Text = unit("") + "__global__ void by_line(char *o) {\n"
                                "  __shared__ char l[__LINE__];\n"
                                "  l[threadIdx.x % 8] = o[0];\n"
                                "  o[threadIdx.x] = l[1];\n"
                                "}\n";
  Env.Unsaved[MainPath] = Text;
  answered();
  Env.Unsaved[MainPath] = "// one more line\n" + Text;
  EXPECT_FALSE(answered()) << "l[] grew by a byte";
  Env.Unsaved[MainPath] = "#line 100\n" + unit("");
  answered();
  Env.Unsaved[MainPath] = "#line 100\n// one more line\n" + unit("");
  EXPECT_FALSE(answered());
}

TEST_P(FactsMemoTest, ALineNumberOnlyPrintedIsKept) {
  // As CUDA code checks its calls: the line goes to fprintf, and to assert's
  // __assert_fail (in a template, a call Clang resolves when it instantiates
  // it: `__PRETTY_FUNCTION__` is dependent there), on both sides.
  const std::string Text = "#include <cassert>\n#include <cstdio>\n" +
                           unit("") + R"(
#define CHECK(e)                                                        \
  do {                                                                  \
    if (!(e))                                                           \
      fprintf(stderr, "<%s:%d> %s\n", __FILE__, __LINE__, #e);          \
  } while (0)
__global__ void guarded(float *o) {
  assert(o != nullptr);
  __shared__ float g[10];
  g[threadIdx.x % 10] = o[0];
  o[threadIdx.x] = g[1];
}
void checked(float *o) {
  CHECK(o != nullptr);
  guarded<<<1, 32>>>(o);
}
template <class T> void dispatched(T *o, char how) {
  if (how == 'g') {
    CHECK(o != nullptr);
    return guarded<<<3, 32>>>(o);
  }
  assert(false && "Not implemented");
}
template void dispatched(float *, char);
#ifndef __CUDA_ARCH__
void checked_on_the_host(float *o) {
  CHECK(o != nullptr);
  guarded<<<2, 32>>>(o);
}
#endif
)";
  Env.Unsaved[MainPath] = Text;
  answered();
  Env.Unsaved[MainPath] = "// one more line\n" + Text;
  EXPECT_TRUE(answered());
}

TEST_P(FactsMemoTest, ALineNumberInALaunchIsNotKept) {
  // In a launch the device-side parse sees, and in one only the host-side
  // parse sees.
  const std::string Launch = "void sized_by_line(float *o) {\n"
                             "  tiled<2><<<1, 32, __LINE__ * 4>>>(o);\n"
                             "}\n";
  for (const std::string &Text :
       {unit("") + Launch,
        unit("") + "#ifndef __CUDA_ARCH__\n" + Launch + "#endif\n"}) {
    Env.Unsaved[MainPath] = Text;
    answered();
    // Answered from the memo, the launch would keep the old size: the plain
    // parse's facts would differ.
    Env.Unsaved[MainPath] = "// one more line\n" + Text;
    EXPECT_FALSE(answered()) << Text;
  }
}

TEST_P(FactsMemoTest, AHeaderChangedOnDiskIsParsed) {
  answered();
  std::string Bigger = Header;
  Bigger.replace(Bigger.find("h[N]"), 4, "h[N + 1]");
  rewrite(HeaderPath, Bigger);
  Env.Unsaved[MainPath] = unit("// a note\n");
  EXPECT_FALSE(answered());
  // An editor buffer of the header, by its content.
  Env.Unsaved[HeaderPath] = Bigger;
  answered();
  Env.Unsaved[MainPath] = unit("");
  EXPECT_TRUE(answered());
  Bigger.replace(Bigger.find("h[N + 1]"), 8, "h[N + 2]");
  Env.Unsaved[HeaderPath] = Bigger;
  Env.Unsaved[MainPath] = unit("// a note\n");
  EXPECT_FALSE(answered());
}

TEST_P(FactsMemoTest, ANameMadeOfAPlaceIsMoved) {
  // Clang names a lambda's type, and an unnamed class, by where it is written:
  // a kernel template instantiated with a lambda is named
  // `apply<(lambda at .../main.cu:N:M)>`, a union `(unnamed union at ...)`.
  std::string Text = unit("") + R"(
template <class F> __global__ void apply(F f, float *o) {
  __shared__ float s[6];
  s[threadIdx.x % 6] = f(o[0]);
  o[threadIdx.x] = s[1];
}
void with_lambda(float *o) {
  apply<<<1, 32>>>([] __device__(float v) { return 2 * v; }, o);
}
)";
  // Two unions on lines 99 and 100: with a line more above them, their
  // names sort the other way.
  Text += std::string(98 - std::count(Text.begin(), Text.end(), '\n'), '\n');
  Text += "__global__ void unions(float *o) {"
          " __shared__ union { float f[4]; int i[4]; } a;\n"
          "  __shared__ union { double d[3]; } b;\n"
          "  a.f[threadIdx.x % 4] = o[0];\n"
          "  b.d[threadIdx.x % 3] = o[1];\n"
          "  o[threadIdx.x] = a.f[1] + b.d[2];\n"
          "}\n";
  Env.Unsaved[MainPath] = Text;
  std::vector<std::string> First;
  answered(&First);
  ASSERT_NE(First[0].find("main.cu:99:"), std::string::npos)
      << "no name made of a place: " << First[0];
  ASSERT_NE(First[0].find("(lambda at "), std::string::npos) << First[0];
  Env.Unsaved[MainPath] = "// one more line\n" + Text;
  std::vector<std::string> Moved;
  EXPECT_TRUE(answered(&Moved));
  EXPECT_NE(Moved[0].find("main.cu:101:"), std::string::npos) << Moved[0];
  // The file read through a link to it: the places name it by either path,
  // each moved.
  const std::string Link = Dir + "/link.cu";
  ASSERT_FALSE(llvm::sys::fs::create_link(MainPath, Link));
  Env.Unsaved.erase(MainPath);
  write("main.cu", Text);
  MainPath = Link;
  answered();
  write("main.cu", "// one more line\n" + Text);
  EXPECT_TRUE(answered());
}

INSTANTIATE_TEST_SUITE_P(Standards, FactsMemoTest,
                         ::testing::Values("-std=c++17", "-std=c++20"),
                         [](const ::testing::TestParamInfo<std::string> &I) {
                           return I.param == "-std=c++17" ? std::string("Cxx17")
                                                          : std::string("Cxx20");
                         });

} // namespace
} // namespace frontend
} // namespace tilefit
