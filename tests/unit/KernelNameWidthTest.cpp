//===- KernelNameWidthTest.cpp - Kernel names as people read them ---------===//
#include "tilefit/reporters/KernelNameWidth.h"

#include "tilefit/model/Messages.h"
#include "tilefit/reporters/MarkdownReporter.h"
#include "tilefit/reporters/TextReporter.h"

#include <gtest/gtest.h>

#include <sstream>

namespace tilefit {
namespace {

// As Clang names CuTe's tutorial kernel (sgemm_sm80.cu), cut short.
const std::string Gemm = "gemm_device<cute::tuple<int, int, int>, "
                         "cute::tuple<cute::C<128>, cute::C<128>, "
                         "cute::C<64>>, cutlass::half_t, cute::tuple<int, "
                         "cute::C<1>>, cute::ComposedLayout<"
                         "cute::Swizzle<3, 3, 3>, cute::C<0>, "
                         "cute::Layout<cute::tuple<cute::C<8>, cute::C<-1>>>>>";

TEST(KernelNameWidthTest, ReadableForms) {
  EXPECT_EQ(readableName("f<cute::C<128>, cute::C<-1>>"), "f<_128, _-1>");
  EXPECT_EQ(readableName("cute::copy<cutlass::half_t>"), "cute::copy<half_t>")
      << "the kernel's own qualifier stays";
  EXPECT_EQ(readableName("g<mycute::C<4>>"), "g<mycute::C<4>>")
      << "only CuTe's namespace";
  EXPECT_EQ(readableName("plain"), "plain");
}

TEST(KernelNameWidthTest, ArgumentsPastTheWidthAreElided) {
  EXPECT_EQ(shortName(Gemm, 0), Gemm) << "0: the name itself";
  EXPECT_EQ(shortName("small<int>", 60), "small<int>");
  const std::string S = shortName(Gemm, 60);
  EXPECT_LE(S.size(), 60u) << S;
  EXPECT_EQ(S, "gemm_device<tuple<int, int, int>, ...>");
  EXPECT_EQ(
      shortName(Gemm, 70),
      "gemm_device<tuple<int, int, int>, tuple<_128, _128, _64>, half_t, ...>");
  EXPECT_EQ(shortName(Gemm, 20), "gemm_device<...>");
  EXPECT_EQ(shortName("a_very_long_kernel_name_without_templates", 10),
            "a_very_...");
  EXPECT_EQ(shortName("S<int>::operator<<int>", 14).size() <= 14, true);
}

KernelReport kernel(const std::string &Name, const std::string &Arch) {
  KernelReport K;
  K.Name = Name;
  K.Arch = K.ParsedAs = Arch;
  K.StaticBytes = 8192;
  return K;
}

// CuTe's tutorial (sgemm_sm80.cu) instantiates gemm_device for NT and TN: the
// same first arguments, so the same width-cut form. Their short names keep
// what differs (the strides and shared-memory layouts) and drop what they
// share, the same whatever order the report holds them in.
TEST(KernelNameWidthTest, InstantiationsAreToldApartByWhatDiffers) {
  auto Name = [](const std::string &AStride, const std::string &ASmem) {
    return "gemm_device<cute::tuple<int, int, int>, cute::tuple<cute::C<128>, "
           "cute::C<128>, cute::C<8>>, float, " +
           AStride + ", " + ASmem +
           ", float, cute::tuple<cute::C<1>, int>, "
           "cute::Layout<cute::tuple<cute::C<128>, cute::C<8>, cute::C<3>>>, "
           "float, cute::tuple<cute::C<1>, int>, float, float>";
  };
  const std::string NT =
      Name("cute::tuple<cute::C<1>, int>",
           "cute::Layout<cute::tuple<cute::C<128>, cute::C<8>, cute::C<3>>, "
           "cute::tuple<cute::C<1>, cute::C<128>, cute::C<1024>>>");
  const std::string TN =
      Name("cute::tuple<int, cute::C<1>>",
           "cute::Layout<cute::tuple<cute::C<128>, cute::C<8>, cute::C<3>>, "
           "cute::tuple<cute::C<8>, cute::C<1>, cute::C<1024>>>");
  ASSERT_EQ(shortName(NT, 60), shortName(TN, 60)) << "alike when cut short";
  Report R;
  R.Kernels = {kernel(NT, "sm_80"), kernel(TN, "sm_80"), kernel("k", "sm_80")};
  KernelNames Names(R, 60);
  EXPECT_EQ(Names.of(NT), "gemm_device<..., tuple<_1, int>, Layout<..., "
                          "tuple<_1, _128, ...>>, ...>");
  EXPECT_EQ(Names.of(TN), "gemm_device<..., tuple<int, _1>, Layout<..., "
                          "tuple<_8, _1, ...>>, ...>");
  std::swap(R.Kernels[0], R.Kernels[1]);
  KernelNames Again(R, 60);
  EXPECT_EQ(Again.of(NT), Names.of(NT)) << "stable, whatever the order";
  EXPECT_EQ(Again.of(TN), Names.of(TN));
  // Where what differs is too long to show, they are numbered in the order
  // of their full names, not of the report.
  KernelNames Narrow(R, 20);
  EXPECT_EQ(Narrow.of(NT).substr(Narrow.of(NT).size() - 2),
            NT < TN ? "#1" : "#2");
  EXPECT_NE(Narrow.of(NT), Narrow.of(TN));
}

TEST(KernelNameWidthTest, SharedShortFormsAreNumberedAndMessagesFollow) {
  Report R;
  std::string Other = Gemm; // differs only past the width
  Other.replace(Other.rfind("cute::C<8>"), 10, "cute::C<16>");
  R.Kernels = {kernel(Gemm, "sm_80"), kernel(Gemm, "sm_90"),
               kernel(Other, "sm_80"), kernel("tiny", "sm_80")};
  KernelNames Names(R, 60);
  // What they share is dropped, what differs kept (within it, likewise).
  EXPECT_EQ(Names.of(Gemm),
            "gemm_device<..., ComposedLayout<..., Layout<tuple<_8, ...>>>>");
  EXPECT_EQ(Names.of(Other),
            "gemm_device<..., ComposedLayout<..., Layout<tuple<_16, ...>>>>");
  EXPECT_EQ(Names.of("tiny"), "tiny");
  EXPECT_EQ(Names.of("not a kernel"), "not a kernel");
  // A check composes its message from Words that mark where it names a kernel
  // or the architecture; the short names follow the marks, and a quoted name
  // that is no slot ('x') is left alone.
  const Words Said = "kernel '" + kernelWord(Gemm) + "' needs 'x' and '" +
                     kernelWord("tiny") + "' on " + archWord("sm_80");
  const std::vector<MessageSlot> &Slots = Said.slots();
  ASSERT_EQ(Slots.size(), 3u);
  EXPECT_EQ(Slots[0].K, MessageSlot::Kind::Kernel);
  EXPECT_EQ(Said.text().substr(Slots[0].Offset, Slots[0].Length), Gemm);
  EXPECT_EQ(Slots[1].K, MessageSlot::Kind::Kernel);
  EXPECT_EQ(Said.text().substr(Slots[1].Offset, Slots[1].Length), "tiny");
  EXPECT_EQ(Slots[2].K, MessageSlot::Kind::Arch);
  EXPECT_EQ(Said.text().substr(Slots[2].Offset, Slots[2].Length), "sm_80");
  EXPECT_EQ(Names.inMessage(Said.text(), Slots),
            "kernel '" + Names.of(Gemm) + "' needs 'x' and 'tiny' on sm_80");
  // Plain words have no slots, whatever they quote.
  EXPECT_TRUE(Words("kernel '" + Gemm + "' on sm_80").slots().empty());
  // Only the architecture's own slot is spelled otherwise: the same letters
  // inside a kernel's name, or in a longer architecture, are words.
  Diagnostic A;
  setMessage(A, "kernel '" + kernelWord("k<sm_90>") + "' on " +
                    archWord("sm_90") + ", not sm_90a");
  ASSERT_EQ(A.Slots.size(), 2u);
  EXPECT_EQ(spellMessage(A.Message, A.Slots,
                         [](const MessageSlot &S, std::string_view T) {
                           return S.K == MessageSlot::Kind::Arch
                                      ? "ARCH"
                                      : "[" + std::string(T) + "]";
                         }),
            "kernel '[k<sm_90>]' on ARCH, not sm_90a");

  Diagnostic D;
  D.Level = Severity::Error;
  D.Check = "tilefit-capacity";
  setMessage(D, "kernel '" + kernelWord(Gemm) + "' needs too much");
  D.Loc = {"k.cu", 3, 1};
  R.Diagnostics.push_back(D);
  std::ostringstream Text, Whole, Md;
  struct NoLines : SourceLines {
    std::optional<std::string> line(const std::string &, unsigned) override {
      return {};
    }
  } Lines;
  renderText(R, Lines, Text, 60);
  renderText(R, Lines, Whole, 0);
  renderMarkdown(R, "/", Md, 60);
  EXPECT_NE(Text.str().find("kernel '" + Names.of(Gemm) + "' needs too much"),
            std::string::npos)
      << Text.str();
  EXPECT_EQ(Text.str().find("cute::"), std::string::npos) << Text.str();
  EXPECT_NE(Whole.str().find(Gemm), std::string::npos)
      << "--name-width=0 keeps names whole";
  EXPECT_EQ(Md.str().find("cute::"), std::string::npos) << Md.str();
  // The table's name column is the longest short name: the width, or where
  // instantiations need more to be told apart, twice it at most; every line
  // fits with the figures.
  const size_t Column = std::max(Names.of(Gemm).size(), Names.of(Other).size());
  EXPECT_LE(Column, 2 * 60u);
  std::istringstream In(Text.str());
  for (std::string Line; std::getline(In, Line);)
    if (Line.rfind("gemm_device", 0) == 0) {
      EXPECT_LE(Line.size(), Column + 2 + std::string("8 KiB").size() * 2 + 2)
          << Line;
    }
}

} // namespace
} // namespace tilefit
