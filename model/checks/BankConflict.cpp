//===- BankConflict.cpp - tilefit-bank-conflict --------------------------===//
//
// A load or store of a `__shared__` variable whose warp requests take more
// than one wavefront a phase (model/Banks.h), in a loop or made by every warp:
// a warning with the access, the variable and the degree, and the fix with its
// price: the padding that removes or minimises the conflict, the bytes it
// adds and the blocks per SM after it; an XOR swizzle for 16-byte accesses.
// Accesses tilefit could not evaluate are never reported.
//
//===----------------------------------------------------------------------===//
#include "CheckSupport.h"

#include "tilefit/model/Banks.h"

#include <algorithm>

namespace tilefit {
namespace checks {
namespace {

/// `tile[32][33]` for \p V with \p Shape.
std::string declarator(const SharedVar &V, const std::vector<uint64_t> &Shape) {
  std::string S = V.Name;
  for (uint64_t E : Shape)
    S += "[" + std::to_string(E) + "]";
  return S;
}

std::string degreePhrase(unsigned Degree) {
  return Degree <= 1 ? "conflict-free" : std::to_string(Degree) + "-way";
}

/// The most wavefronts any analysed access of \p Var in \p K takes with the
/// variable's innermost extent \p Pad elements longer.
unsigned worstWithPadding(const KernelReport &K, const SharedVar &Var,
                          uint64_t Pad, const BankModel &Model) {
  unsigned Worst = 0;
  for (const BankAccessReport &B : K.BankAccesses) {
    if (!B.Verdict.Analysed || B.Var.Loc.File != Var.Loc.File ||
        B.Var.Loc.Line != Var.Loc.Line || B.Var.Name != Var.Name)
      continue;
    std::vector<uint64_t> Shape = B.Var.Shape;
    Shape.back() += Pad;
    // The loops are the facts' own: the report keeps the access's
    // expressions, whose counters it enumerates again.
    BankVerdict V = analyzeAccess(B.Access, B.Loops, Shape, B.Var.ElementBytes,
                                  B.Block, Model);
    if (!V.Analysed)
      return UINT32_MAX;
    Worst = std::max(Worst, V.Degree);
  }
  return Worst;
}

class BankConflictCheck : public KernelCheck {
public:
  void check(const KernelReport &K, const KernelContext &C,
             const Recorder &Record) const override {
    if (K.BankAccesses.empty() || !C.Arch)
      return;
    const std::optional<BankModel> Model = bankModelOf(*C.Arch);
    if (!Model)
      return;
    for (const BankAccessReport &B : K.BankAccesses) {
      const BankVerdict &V = B.Verdict;
      if (!V.Analysed || V.Degree < 2 || !(B.Access.InLoop || V.EveryWarp))
        continue;
      Diagnostic D = makeDiagnostic(CheckId::BankConflict, K, message(B));
      D.Loc = B.Access.Loc;
      D.Figures.push_back({"degree", V.Degree});
      D.Figures.push_back({"width_bytes", B.Access.Width});
      D.Notes.push_back(
          {"'" + B.Var.Name + "' declared here" + shapeSuffix(B.Var) +
               (B.Var.Bytes ? ", " + bytesPhrase(*B.Var.Bytes) : ""),
           B.Var.Loc});
      if (!B.Block.Known)
        D.Notes.push_back(
            {"analysed for the first warp with threadIdx.x = lane (blockDim.x "
             "a multiple of 32): no launch, BlockShapes in the configuration "
             "or __launch_bounds__ gives the block's shape",
             K.Loc});
      for (const std::string &A : B.Access.Assumed)
        D.Notes.push_back(
            {"assuming every thread of the block meets `" + A + "`",
             B.Access.Loc});
      addFixNote(K, C, B, *Model, D);
      recordFinding(K, std::move(D), Record);
    }
  }

private:
  static Words message(const BankAccessReport &B) {
    const BankVerdict &V = B.Verdict;
    const SharedAccess &A = B.Access;
    std::string Lanes = std::to_string(V.ActiveLanes) + " lanes of a warp";
    if (V.LanesPerPhase < 32)
      Lanes = "the lanes of a warp, " + std::to_string(V.LanesPerPhase) +
              " per phase of a " + std::to_string(A.Width) + "-byte access,";
    std::string M = std::to_string(V.Degree) +
                    "-way shared-memory bank conflict: " + Lanes + " " +
                    (A.Store ? "write" : "read") + " `" + A.Text + "` of '" +
                    B.Var.Name + "'";
    if (V.LaneStride && *V.LaneStride != 0)
      M += " " + std::to_string(*V.LaneStride) + " bytes apart";
    M += ", " + std::to_string(V.Degree) + " words from bank " +
         std::to_string(V.WorstBank);
    if (!B.WorstCounters.empty()) {
      M += " (at ";
      for (size_t I = 0; I < B.WorstCounters.size(); ++I)
        M += (I ? ", " : "") + B.WorstCounters[I].first + " = " +
             std::to_string(B.WorstCounters[I].second);
      M += ")";
    }
    return M;
  }

  static void addFixNote(const KernelReport &K, const KernelContext &C,
                         const BankAccessReport &B, const BankModel &Model,
                         Diagnostic &D) {
    const SharedVar &Var = B.Var;
    if (B.Access.Width > 8) {
      D.Notes.push_back(
          {"16-byte accesses are served a quarter-warp at a time: the usual "
           "fix is an XOR swizzle of the 16-byte chunks of each row (chunk ^ "
           "(row % 8)), which keeps the tile's size; padding rows by 16 bytes "
           "also works at the price of the padding",
           Var.Loc});
      return;
    }
    if (Var.Shape.size() < 2 || Var.ElementBytes == 0 || !Var.Bytes)
      return;
    const unsigned Now = worstWithPadding(K, Var, 0, Model);
    const uint64_t MaxPad =
        std::max<uint64_t>(1, Model.Banks * Model.BankBytes / Var.ElementBytes);
    unsigned Best = Now;
    uint64_t BestPad = 0;
    for (uint64_t Pad = 1; Pad <= MaxPad && Best > 1; ++Pad) {
      const unsigned With = worstWithPadding(K, Var, Pad, Model);
      if (With < Best) {
        Best = With;
        BestPad = Pad;
      }
    }
    if (BestPad == 0)
      return;
    uint64_t Rows = 1;
    for (size_t I = 0; I + 1 < Var.Shape.size(); ++I)
      Rows *= Var.Shape[I];
    const uint64_t Added = Rows * BestPad * Var.ElementBytes;
    std::vector<uint64_t> Padded = Var.Shape;
    Padded.back() += BestPad;
    std::string Text = "padding the last extent by " + std::to_string(BestPad) +
                       (BestPad == 1 ? " element" : " elements") + ", `" +
                       declarator(Var, Padded) + "`, makes its accesses " +
                       degreePhrase(Best) + ": +" + bytesPhrase(Added);
    if (C.Arch && K.StaticBytes && K.Occupancy.BlockThreads &&
        K.Occupancy.BlocksPerSm) {
      OccupancyInput In =
          occupancyInput(K, *K.Occupancy.BlockThreads, C.Registers, C.Carveout);
      In.StaticBytes += Added;
      auto O = computeOccupancy(*C.Arch, In);
      const bool Fits =
          !K.Limit.StaticMax || In.StaticBytes <= *K.Limit.StaticMax;
      if (!Fits)
        Text += ", above the static limit";
      else if (O && O->BlocksPerSm == *K.Occupancy.BlocksPerSm)
        Text += ", still " + std::to_string(O->BlocksPerSm) +
                " blocks per SM on " + K.Arch;
      else if (O)
        Text += ", " + std::to_string(O->BlocksPerSm) + " blocks per SM on " +
                K.Arch + " instead of " +
                std::to_string(*K.Occupancy.BlocksPerSm);
    }
    D.Notes.push_back({Text, Var.Loc});
  }
};

} // namespace

std::unique_ptr<KernelCheck> createBankConflictCheck() {
  return std::make_unique<BankConflictCheck>();
}

} // namespace checks
} // namespace tilefit
