//===- Constant.cpp - tilefit-constant ------------------------------------===//
//
// A unit's __constant__ data above the per-module limit (ptxas), and the -rdc
// units' sum over the program (nvlink). A unit check: it is about units.
//
//===----------------------------------------------------------------------===//
#include "CheckSupport.h"

#include "tilefit/model/GlobList.h"

#include <algorithm>
#include <map>

namespace tilefit {
namespace checks {

namespace {

/// A unit whose `__constant__` data exceeds the per-module limit: ptxas rejects
/// it.
void checkConstantMemory(const TranslationUnitFacts &TU,
                         const ConstantMemoryReport &C,
                         const AnalysisOptions &Opts,
                         std::vector<Diagnostic> &Out) {
  if (!C.Bytes || !C.Limit || *C.Bytes <= *C.Limit ||
      !GlobList(Opts.Checks)
           .contains(std::string(checkInfo(CheckId::Constant).Name)))
    return;
  const CheckInfo &Info = checkInfo(CheckId::Constant);
  Diagnostic D;
  D.Level = Info.DefaultSeverity;
  D.Check = std::string(Info.Name);
  D.Arch = TU.Arch;
  D.TranslationUnit = TU.File;
  setMessage(D, "the __constant__ variables of '" + fileNameOf(TU.File) +
                    "' take " + bytesPhrase(*C.Bytes) + " on " +
                    archWord(TU.Arch) + ", more than the " +
                    bytesPhrase(*C.Limit) + " ptxas accepts in one module");
  D.Figures = {{"constant_bytes", *C.Bytes}, {"constant_limit", *C.Limit}};
  // At the variable that crosses the limit.
  for (const AllocationReport &A : C.Variables)
    if (A.Offset && A.Var.Bytes && *A.Offset + *A.Var.Bytes > *C.Limit) {
      D.Loc = A.Var.Loc;
      break;
    }
  std::vector<const AllocationReport *> Sorted;
  for (const AllocationReport &A : C.Variables)
    Sorted.push_back(&A);
  std::stable_sort(Sorted.begin(), Sorted.end(),
                   [](const auto *L, const auto *R) {
                     return L->Var.Bytes.value_or(0) > R->Var.Bytes.value_or(0);
                   });
  for (const AllocationReport *A : Sorted) {
    std::string Msg = "'" + A->Var.QualifiedName + "' takes " +
                      bytesPhrase(A->Var.Bytes.value_or(0)) +
                      shapeSuffix(A->Var);
    if (A->Offset)
      Msg += " at offset " + std::to_string(*A->Offset);
    if (D.Notes.empty())
      Msg += "; move large read-only tables to global memory (a const "
             "__restrict__ pointer)";
    D.Notes.push_back({Msg, A->Var.Loc});
  }
  if (C.Relocatable)
    D.Notes.push_back(
        {"with -rdc, nvlink also checks the sum over the program's units when "
         "it "
         "links; tilefit adds up the -rdc units of one run as one program",
         {TU.File, 0, 0}});
  Out.push_back(std::move(D));
}

void checkProgramConstantMemory(const AnalysisOptions &Opts, Report &R) {
  if (!GlobList(Opts.Checks)
           .contains(std::string(checkInfo(CheckId::Constant).Name)))
    return;
  // Per architecture: the relocatable units with their constant data.
  std::map<std::string, std::vector<const UnitReport *>> ByArch;
  for (const UnitReport &U : R.Units)
    if (U.ConstantMemory && U.ConstantMemory->Relocatable &&
        U.ConstantMemory->Bytes && *U.ConstantMemory->Bytes > 0 &&
        U.ConstantMemory->Limit)
      ByArch[U.Arch].push_back(&U);
  for (const auto &[Arch, Units] : ByArch) {
    if (Units.size() < 2)
      continue; // One unit: its own check said it all.
    uint64_t Sum = 0;
    bool Overflow = false;
    for (const UnitReport *U : Units)
      Overflow |= __builtin_add_overflow(Sum, *U->ConstantMemory->Bytes, &Sum);
    const uint64_t Limit = *Units.front()->ConstantMemory->Limit;
    if (!Overflow && Sum <= Limit)
      continue;
    const CheckInfo &Info = checkInfo(CheckId::Constant);
    Diagnostic D;
    D.Level = Info.DefaultSeverity;
    D.Check = std::string(Info.Name);
    D.Arch = Arch;
    setMessage(D, "the __constant__ data of the " +
                      std::to_string(Units.size()) +
                      " units compiled with -rdc take " +
                      (Overflow ? std::string("more than 64 bits can count")
                                : bytesPhrase(Sum)) +
                      " on " + archWord(Arch) + " together, more than the " +
                      bytesPhrase(Limit) +
                      " nvlink accepts in one program if they are linked "
                      "together");
    D.Figures = {{"constant_bytes", Overflow ? UINT64_MAX : Sum},
                 {"constant_limit", Limit}};
    for (const UnitReport *U : Units)
      D.Notes.push_back({"'" + fileNameOf(U->File) + "' has " +
                             bytesPhrase(*U->ConstantMemory->Bytes) +
                             " of __constant__ data",
                         {U->File, 0, 0}});
    D.TranslationUnit = Units.front()->File;
    D.Loc = {Units.front()->File, 0, 0};
    R.Diagnostics.push_back(std::move(D));
  }
}

class ConstantCheck : public UnitCheck {
  void check(const TranslationUnitFacts &TU, const UnitReport &U,
             const AnalysisOptions &Opts,
             std::vector<Diagnostic> &Out) const override {
    if (U.ConstantMemory)
      checkConstantMemory(TU, *U.ConstantMemory, Opts, Out);
  }
  void checkProgram(const AnalysisOptions &Opts, Report &R) const override {
    checkProgramConstantMemory(Opts, R);
  }
};

} // namespace

std::unique_ptr<UnitCheck> createConstantCheck() {
  return std::make_unique<ConstantCheck>();
}

} // namespace checks
} // namespace tilefit
