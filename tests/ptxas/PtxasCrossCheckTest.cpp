//===- PtxasCrossCheckTest.cpp - tilefit's figures against ptxas's --------===//
//
// Compiles every fixture with `nvcc -Xptxas -v` for sm_80, sm_90 and sm_120
// (and any other architecture the fixture names) and asserts that tilefit
// reports exactly the kernels ptxas compiles, each with ptxas's "bytes smem"
// (with -rdc, the device-linked program's figure, nvlink's),
// and the unit's `__constant__` data with ptxas's figure where ptxas gives one
// ("N bytes cmem[3]" up to sm_89, absent there when 0; the "too much global
// constant data" error on every architecture). Skipped, visibly, where nvcc is
// absent.
//
//===----------------------------------------------------------------------===//
#include "../support/Fixture.h"
#include "../support/TestSupport.h"

#include "tilefit/model/Arch.h"

#include "llvm/Demangle/Demangle.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <regex>

namespace tilefit {
namespace test {
namespace {

const std::vector<std::string> CrossCheckArchs = {"sm_80", "sm_90", "sm_120"};

/// nvcc names anonymous namespaces `_GLOBAL__N__<hash>_<len>_<file>_<id>`.
/// tilefit predicts the name where nvcc's id is predictable; elsewhere it keeps
/// Clang's `_GLOBAL__N_1`, and only then are the names compared with that part
/// masked.
std::string masked(const std::string &Mangled) {
  static const std::regex Anon(R"(\d+_GLOBAL__N_\w*?(?=\d+[A-Za-z_]))");
  return std::regex_replace(Mangled, Anon, "<anon>");
}
std::string comparable(const std::string &Mangled) {
  return Mangled.find("12_GLOBAL__N_1") != std::string::npos ? masked(Mangled)
                                                             : Mangled;
}

/// Whether the kernel ptxas names \p Mangled is the one a fixture calls \p Name
/// (`ptxas-unchecked {{late<4>}}`): its demangled name starts with it, up to
/// the parameters.
bool demangledName(const std::string &Mangled, const std::string &Name) {
  std::string D = llvm::demangle(Mangled);
  // `void late<4>(double const*, double*)`: the return type, then the name.
  size_t Start = D.find(Name);
  return Start != std::string::npos && Start + Name.size() < D.size() &&
         D[Start + Name.size()] == '(' && (Start == 0 || D[Start - 1] == ' ');
}

/// tilefit-registers states no verdict ptxas contradicts: a warning only on a
/// kernel ptxas spills, a remark only where ptxas meets the pressure it
/// describes (a stack frame, spill stores, or the registers at a limit the
/// remark names).
void checkRegisterFindings(const Report &R, const PtxasFigures &P,
                           const std::string &Arch) {
  for (const Diagnostic &D : R.Diagnostics) {
    if (D.Check != "tilefit-registers" || D.Arch != Arch)
      continue;
    auto K = std::find_if(R.Kernels.begin(), R.Kernels.end(),
                          [&](const KernelReport &K) {
                            return K.Arch == Arch && K.Name == D.Kernel;
                          });
    ASSERT_NE(K, R.Kernels.end()) << D.Kernel;
    auto ForArch = P.KernelResources.find(Arch);
    if (ForArch == P.KernelResources.end())
      continue;
    auto It = ForArch->second.find(comparable(K->Mangled));
    if (It == ForArch->second.end())
      continue;
    const PtxasFigures::Resources &Theirs = It->second;
    std::string Said = Arch + ": " + D.Message + "; ptxas: " +
                       std::to_string(Theirs.Registers) + " registers, " +
                       std::to_string(Theirs.StackFrame) +
                       " bytes stack frame, " +
                       std::to_string(Theirs.SpillStores) +
                       " bytes spill stores";
    if (D.Level >= Severity::Warning) {
      EXPECT_GT(Theirs.SpillStores, 0u) << "a warning ptxas contradicts: "
                                        << Said;
      continue;
    }
    uint64_t Limit = UINT64_MAX;
    for (const auto &[Name, Value] : D.Figures)
      if (Name == "registers_per_thread_limit" ||
          Name == "launch_registers_per_thread_limit")
        Limit = std::min(Limit, Value);
    EXPECT_TRUE(Theirs.StackFrame > 0 || Theirs.SpillStores > 0 ||
                Theirs.Registers >= Limit)
        << "a remark on a kernel ptxas keeps in registers below its limit: "
        << Said;
  }
}

/// The function's own name in \p Mangled (`apply` in
/// `_Z5applyIfXadL_Z9store_onePfEEEvPT_`); "" when it does not demangle.
std::string baseName(const std::string &Mangled) {
  llvm::ItaniumPartialDemangler D;
  if (D.partialDemangle(Mangled.c_str()))
    return "";
  size_t N = 0;
  char *Buf = D.getFunctionBaseName(nullptr, &N);
  std::string Name = Buf ? std::string(Buf) : std::string();
  std::free(Buf);
  return Name;
}

class PtxasCrossCheck : public ::testing::TestWithParam<std::string> {};

TEST_P(PtxasCrossCheck, FiguresEqualPtxas) {
  if (!haveNvcc())
    GTEST_SKIP() << "nvcc is not on PATH: the ptxas cross-check cannot run";
  Fixture F = parseFixture(GetParam());
  if (!F.PtxasSkip.empty())
    GTEST_SKIP() << "fixture opts out of the ptxas cross-check: "
                 << F.PtxasSkip;

  // sm_80, sm_90 and sm_120 always, and whatever else the fixture analyses.
  std::vector<std::string> Archs = CrossCheckArchs;
  for (const std::string &A : F.Archs)
    if (std::find(Archs.begin(), Archs.end(), A) == Archs.end())
      Archs.push_back(A);
  PtxasFigures P = ptxasFigures(F.Path, nvccFlags(F), Archs);
  ASSERT_TRUE(P.Error.empty()) << P.Error;
  Report R = analyzeFile(F.Path, tilefitFlags(F), Archs, builtinDatabase());

  // nvcc compiled it: tilefit must have parsed it without an error too (unless
  // the fixture gives tilefit errors of its own to show what becomes of them:
  // STATUS: partial).
  if (F.Status == "ok")
    for (const UnitReport &U : R.Units) {
      EXPECT_TRUE(U.Ok) << U.Arch << ": nvcc compiles " << F.Path
                        << ", tilefit reports a parse error: "
                        << (U.Messages.empty() ? std::string("(none)")
                                               : U.Messages.front().Message);
    }

  for (const std::string &Arch : Archs) {
    std::map<std::string, const KernelReport *> Ours;
    for (const KernelReport &K : R.Kernels)
      if (K.Arch == Arch)
        Ours[comparable(K.Mangled)] = &K;
    size_t Checked = 0;
    for (const auto &[Mangled, Bytes] : P.Figures[Arch]) {
      auto It = Ours.find(Mangled);
      if (It == Ours.end())
        It = Ours.find(masked(Mangled));
      // A kernel whose name tilefit says differs from nvcc's
      // (name_differs_from_nvcc): the one of the same base name, if only one.
      if (It == Ours.end()) {
        auto Same = Ours.end();
        size_t Count = 0;
        for (auto O = Ours.begin(); O != Ours.end(); ++O)
          if (!O->second->NameDiffers.empty() &&
              baseName(O->first) == baseName(Mangled)) {
            Same = O;
            ++Count;
          }
        if (Count == 1)
          It = Same;
      }
      if (It == Ours.end()) {
        if (std::none_of(
                F.PtxasUnchecked.begin(), F.PtxasUnchecked.end(),
                [&](const auto &U) { return demangledName(Mangled, U.first); }))
          ADD_FAILURE() << Arch << ": ptxas compiles " << Mangled << " ("
                        << Bytes << " bytes); tilefit does not report it";
        continue;
      }
      const KernelReport &K = *It->second;
      Ours.erase(It);
      // With -rdc the figure is the linked program's, and says so.
      EXPECT_EQ(K.LinkedFigure, P.Linked || P.Unlinked)
          << Arch << ": " << K.Name;
      if (F.PtxasUnchecked.count(K.Name))
        continue;
      ++Checked;
      EXPECT_TRUE(K.StaticBytes.has_value())
          << Arch << ": " << K.Name << ": " << K.UnknownReason;
      if (K.StaticBytes) {
        EXPECT_EQ(*K.StaticBytes, Bytes)
            << Arch << ": kernel " << K.Name << " (" << Mangled << "): tilefit "
            << *K.StaticBytes << ", ptxas " << Bytes;
      }
    }
    for (const auto &[Mangled, K] : Ours)
      if (!F.PtxasUnchecked.count(K->Name))
        ADD_FAILURE() << Arch << ": tilefit reports " << K->Name << " ("
                      << Mangled << "), which ptxas does not compile";
    RecordProperty(Arch + "_kernels_checked", static_cast<int>(Checked));
    checkRegisterFindings(R, P, Arch);

    // Constant memory: ptxas prints cmem[3] before sm_90 (nothing when there is
    // none), and the figure of its error everywhere.
    std::optional<uint64_t> Theirs;
    if (auto It = P.ConstantBytes.find(Arch); It != P.ConstantBytes.end())
      Theirs = It->second;
    else if (auto A = parseArch(Arch); A && A->Number < 90)
      Theirs = 0;
    if (!Theirs)
      continue;
    for (const UnitReport &U : R.Units) {
      if (U.Arch != Arch || !U.Ok)
        continue;
      ASSERT_TRUE(U.ConstantMemory.has_value()) << Arch;
      EXPECT_TRUE(U.ConstantMemory->Bytes.has_value())
          << Arch
          << ": constant memory unknown: " << U.ConstantMemory->UnknownReason;
      if (U.ConstantMemory->Bytes) {
        EXPECT_EQ(*U.ConstantMemory->Bytes, *Theirs)
            << Arch << ": __constant__ data: tilefit "
            << *U.ConstantMemory->Bytes << ", ptxas " << *Theirs;
      }
      RecordProperty(Arch + "_constant_bytes", static_cast<int>(*Theirs));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, PtxasCrossCheck,
                         ::testing::ValuesIn(listFixtures()), fixtureTestName);

} // namespace
} // namespace test
} // namespace tilefit
