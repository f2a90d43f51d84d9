//===- Tmem.cpp - tilefit-tmem -------------------------------------------===//
//
// Tensor Memory requests ptxas or the hardware cannot grant (sm_100 family).
//
//===----------------------------------------------------------------------===//
#include "CheckSupport.h"

#include "tilefit/model/Scopes.h"

#include <algorithm>

namespace tilefit {
namespace checks {
namespace {

/// Tensor Memory requests ptxas or the hardware cannot grant: a count that is
/// not a power of 2 in range, or more columns in all than an SM has.
class TmemCheck : public KernelCheck {
public:
  void check(const KernelReport &K, const KernelContext &C,
             const Recorder &Record) const override {
    const ArchCapacity *Arch = C.Arch;
    if (!K.TensorMemory || !K.TensorMemory->Capacity)
      return;
    const TensorMemoryReport &T = *K.TensorMemory;
    const uint64_t Capacity = *T.Capacity;
    // Without the smallest count in the database, only the SM's columns bound a
    // request.
    const uint64_t Min = Arch && Arch->TensorMemoryMinAllocColumns
                             ? *Arch->TensorMemoryMinAllocColumns
                             : 0;
    bool AllValid = true;
    for (const TmemAllocation &A : T.Allocations) {
      if (!A.Columns ||
          (Min == 0 ? *A.Columns <= Capacity
                    : validTmemAllocation(*A.Columns, Min, Capacity)))
        continue;
      AllValid = false;
      Diagnostic D = makeDiagnostic(
          CheckId::Tmem, K,
          A.Form + " asks for " + std::to_string(*A.Columns) +
              " columns of Tensor Memory in kernel '" + kernelWord(K.Name) +
              "' on " + archWord(K.Arch) +
              (Min == 0 ? "; a count may be at most " + std::to_string(Capacity)
                        : "; a count must be a power of 2 from " +
                              std::to_string(Min) + " to " +
                              std::to_string(Capacity)));
      D.Loc = A.Loc;
      D.Figures = {{"tmem_columns", *A.Columns},
                   {"tmem_columns_limit", Capacity}};
      D.Notes.push_back(makeNote(
          "kernel '" + kernelWord(K.Name) + "' is defined here", K.Loc));
      recordFinding(K, std::move(D), Record);
    }
    if (!AllValid || !T.Columns || *T.Columns <= Capacity)
      return;
    Diagnostic D = makeDiagnostic(
        CheckId::Tmem, K,
        "kernel '" + kernelWord(K.Name) + "' allocates " +
            std::to_string(*T.Columns) + " columns of Tensor Memory on " +
            archWord(K.Arch) + ", more than the " + std::to_string(Capacity) +
            " columns of an SM; unless it frees columns in between, " +
            "its last allocation blocks forever");
    // tilefit cannot see the deallocations, so this one is a warning.
    D.Level = Severity::Warning;
    D.Figures = {{"tmem_columns", *T.Columns},
                 {"tmem_columns_limit", Capacity}};
    std::vector<const TmemAllocation *> Sorted;
    for (const TmemAllocation &A : T.Allocations)
      Sorted.push_back(&A);
    std::stable_sort(Sorted.begin(), Sorted.end(),
                     [](const auto *L, const auto *R) {
                       return L->Columns.value_or(0) > R->Columns.value_or(0);
                     });
    for (const TmemAllocation *A : Sorted)
      D.Notes.push_back(
          {A->Form + " allocates " + std::to_string(*A->Columns) + " columns" +
               (A->CtaGroup == 2 ? " on each of two SMs" : "") + " here",
           A->Loc});
    recordFinding(K, std::move(D), Record);
  }
};

} // namespace

std::unique_ptr<KernelCheck> createTmemCheck() {
  return std::make_unique<TmemCheck>();
}

} // namespace checks
} // namespace tilefit
