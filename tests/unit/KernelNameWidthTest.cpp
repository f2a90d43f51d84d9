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

TEST(KernelNameWidthTest, SharedShortFormsAreNumberedAndMessagesFollow) {
  Report R;
  std::string Other = Gemm; // differs only past the width
  Other.replace(Other.rfind("cute::C<8>"), 10, "cute::C<16>");
  R.Kernels = {kernel(Gemm, "sm_80"), kernel(Gemm, "sm_90"),
               kernel(Other, "sm_80"), kernel("tiny", "sm_80")};
  KernelNames Names(R, 60);
  EXPECT_EQ(Names.of(Gemm), "gemm_device<tuple<int, int, int>, ...>#1");
  EXPECT_EQ(Names.of(Other), "gemm_device<tuple<int, int, int>, ...>#2");
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
  // The table's name column is the width, at most: every line of it fits with
  // the figures.
  std::istringstream In(Text.str());
  for (std::string Line; std::getline(In, Line);)
    if (Line.rfind("gemm_device", 0) == 0)
      EXPECT_LE(Line.size(), 60u + 2 + std::string("8 KiB").size() * 2 + 2)
          << Line;
}

} // namespace
} // namespace tilefit
