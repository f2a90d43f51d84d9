//===- CheckSupport.cpp ---------------------------------------------------===//
#include "CheckSupport.h"

#include "tilefit/model/ByteUnits.h"

#include <algorithm>
#include <map>

namespace tilefit {
namespace checks {

std::string shapeSuffix(const SharedVar &V) {
  return V.Type.empty() ? "" : " (" + V.Type + ")";
}

/// One note per allocation, largest first; \p Advice is appended to the largest
/// one's note.
std::vector<Note> allocationNotes(const KernelReport &K, const Words &Advice) {
  std::vector<const AllocationReport *> Sorted;
  for (const AllocationReport &A : K.Allocations)
    Sorted.push_back(&A);
  std::stable_sort(Sorted.begin(), Sorted.end(),
                   [](const AllocationReport *L, const AllocationReport *R) {
                     return L->Var.Bytes.value_or(0) > R->Var.Bytes.value_or(0);
                   });
  std::vector<Note> Notes;
  for (const AllocationReport *A : Sorted) {
    Words Msg = "'" + A->Var.Name + "' takes " +
                (A->Var.Bytes ? bytesPhrase(*A->Var.Bytes)
                              : std::string("an unknown size")) +
                shapeSuffix(A->Var);
    if (A->Offset)
      Msg += " at offset " + std::to_string(*A->Offset);
    if (A->SharedWithOtherKernels)
      Msg += ", shared with other kernels of the translation unit";
    if (Notes.empty() && !Advice.empty())
      Msg += "; " + Advice;
    Notes.push_back(makeNote(Msg, A->Var.Loc));
  }
  return Notes;
}

void recordFinding(const KernelReport &K, Diagnostic D,
                   const Recorder &Record) {
  if (K.InstantiatedAt)
    D.Notes.push_back(makeNote("in instantiation of kernel '" +
                                   kernelWord(K.Name) + "' requested here",
                               *K.InstantiatedAt));
  Record(std::move(D));
}

Diagnostic makeDiagnostic(CheckId Id, const KernelReport &K, Words Message) {
  const CheckInfo &C = checkInfo(Id);
  Diagnostic D;
  D.Level = C.DefaultSeverity;
  D.Check = std::string(C.Name);
  setMessage(D, std::move(Message));
  D.Loc = K.Loc;
  D.Arch = K.Arch;
  D.TranslationUnit = K.TranslationUnit;
  D.Kernel = K.Name;
  if (K.StaticBytes)
    D.Figures.push_back({"static_smem_bytes", *K.StaticBytes});
  if (K.WorstLaunch)
    D.Figures.push_back(
        {"dynamic_smem_bytes", *K.Launches[*K.WorstLaunch].DynamicBytes});
  if (K.Limit.BlockOptinMax)
    D.Figures.push_back({"block_optin_max", *K.Limit.BlockOptinMax});
  if (K.Occupancy.BlocksPerSm)
    D.Figures.push_back({"blocks_per_sm", *K.Occupancy.BlocksPerSm});
  return D;
}

std::string statedPhrase(const LaunchReport &L) {
  if (L.StatedBy == "comment")
    return " (stated by its `// tilefit-dynamic-smem` comment)";
  if (L.StatedBy == "configuration")
    return " (stated by DynamicSharedMemory in the configuration)";
  return "";
}

/// Notes for the launch that asks the most and for the `extern __shared__`
/// arrays it sizes.
void addLaunchNotes(const KernelReport &K, Diagnostic &D) {
  if (!K.WorstLaunch)
    return;
  const LaunchReport &L = K.Launches[*K.WorstLaunch];
  if (L.DynamicBytes && *L.DynamicBytes > 0) {
    D.Notes.push_back({"launched here with " + bytesPhrase(*L.DynamicBytes) +
                           " of dynamic shared memory" + statedPhrase(L),
                       L.Loc});
    for (const SharedVar &V : K.DynamicVars)
      D.Notes.push_back(
          {"'" + V.Name + "' is dynamic shared memory, sized at launch",
           V.Loc});
  }
}

/// "53248 bytes (52 KiB)", or "… (1024 static + 52224 dynamic at launch)" with
/// a launch.
std::string totalPhrase(const KernelReport &K, uint64_t Total) {
  std::string S = bytesPhrase(Total);
  if (K.WorstLaunch && K.StaticBytes && Total > *K.StaticBytes)
    S += " (" + std::to_string(*K.StaticBytes) + " static + " +
         std::to_string(Total - *K.StaticBytes) + " dynamic at launch)";
  return S;
}

OccupancyInput occupancyInput(const KernelReport &K, uint64_t Threads,
                              std::optional<uint64_t> Registers,
                              std::optional<int> Carveout) {
  OccupancyInput In;
  In.BlockThreads = Threads;
  In.Registers = Registers.value_or(0);
  In.StaticBytes = K.StaticBytes.value_or(0);
  In.DynamicBytes =
      K.WorstLaunch ? *K.Launches[*K.WorstLaunch].DynamicBytes : 0;
  In.OptInBytes = K.OptInBytes;
  In.CarveoutPercent = Carveout;
  return In;
}

uint64_t totalBytes(const KernelReport &K) {
  return K.WorstLaunch ? *K.Launches[*K.WorstLaunch].TotalBytes
                       : K.StaticBytes.value_or(0);
}

std::string registersPhrase(uint64_t Registers) {
  return std::to_string(Registers) +
         (Registers == 1 ? " 32-bit register" : " 32-bit registers");
}

namespace {
/// What to suggest for an extent that is \p Now and fits up to \p Bound (<
/// Now): a tile dimension (16 or more) keeps its kind, a power of 2 or a
/// multiple of the power of 2 it is one of (BM = 64, not 89); a small count
/// (stages) may be any value. Value 0: none of the kind fits.
struct Suggestion {
  uint64_t Value = 0;
  std::string Kind; ///< "a power of 2", "a multiple of 8"
};
/// Whether \p X meets every one of \p Cs.
bool meets(uint64_t X, const std::vector<ExtentConstraint> &Cs) {
  using K = ExtentConstraint::Kind;
  for (const ExtentConstraint &C : Cs) {
    const bool Ok = C.Is == K::MultipleOf  ? X % C.Value == 0
                    : C.Is == K::DivisorOf ? X > 0 && C.Value % X == 0
                    : C.Is == K::AtLeast   ? X >= C.Value
                    : C.Is == K::AtMost    ? X <= C.Value
                                           : X > 0 && (X & (X - 1)) == 0;
    if (!Ok)
      return false;
  }
  return true;
}

Suggestion suggestExtent(uint64_t Now, uint64_t Bound,
                         const std::vector<ExtentConstraint> &Cs) {
  // The kernel's static_asserts on the name decide when it has any: the largest
  // value below the bound that meets them all.
  if (!Cs.empty()) {
    for (uint64_t X = Bound, Tries = 0; X > 0 && Tries < (1u << 20);
         --X, ++Tries)
      if (meets(X, Cs))
        return {X, "static_assert"};
    return {0, ""};
  }
  if (Now < 16)
    return {Bound, ""};
  const uint64_t Pow2Divisor =
      Now & (~Now + 1); // the largest power of 2 dividing Now
  if (Pow2Divisor == Now) {
    uint64_t P = 1;
    while (P * 2 <= Bound)
      P *= 2;
    return {P, "a power of 2"};
  }
  if (Pow2Divisor >= 4)
    return {Bound / Pow2Divisor * Pow2Divisor,
            "a multiple of " + std::to_string(Pow2Divisor)};
  return {0, ""};
}
} // namespace

std::vector<Note>
FitAdvisor::extentNotes(const std::function<bool(uint64_t)> &Fits,
                        const Words &Goal) const {
  std::vector<Note> Notes;
  KernelLayout Now = Layout.layout(Kernel);
  // The kernel's static_asserts on a name (ExtentConstraint), when it has
  // facts.
  auto constraintsOn = [&](const std::string &Name) {
    std::vector<ExtentConstraint> Cs;
    if (Kernel < TU.Kernels.size())
      for (const ExtentConstraint &C : TU.Kernels[Kernel].Constraints)
        if (C.Name == Name)
          Cs.push_back(C);
    return Cs;
  };
  // A name that sizes more than one extent of the kernel's variables: the
  // figures below change one, so no edit of the name is offered.
  std::map<std::string, unsigned> Uses;
  for (const Placement &P : Now.Placed)
    for (const std::string &Name : TU.Vars[P.Var].ExtentNames)
      if (!Name.empty())
        ++Uses[Name];
  // The edit that sets \p Name to \p Value, where its literal is known.
  auto fixFor = [&](const SharedVar &V, size_t D, const std::string &Name,
                    uint64_t Value) -> std::optional<FixIt> {
    if (D >= V.ExtentLiterals.size() || !V.ExtentLiterals[D].valid() ||
        Uses[Name] != 1)
      return std::nullopt;
    const std::string Text = std::to_string(Value);
    const WrittenLiteral &At = V.ExtentLiterals[D];
    return FixIt{"set " + Name + " to " + Text, {{At.Loc, At.Length, Text}}};
  };
  for (const Placement &P : Now.Placed) {
    const SharedVar &V = TU.Vars[P.Var];
    if (!V.Bytes)
      continue;
    for (size_t D = 0; D < V.Shape.size() && D < V.ExtentNames.size(); ++D) {
      const uint64_t Extent = V.Shape[D];
      if (V.ExtentNames[D].empty() || Extent < 2 || *V.Bytes % Extent)
        continue;
      const uint64_t Unit = *V.Bytes / Extent;
      auto TotalWith = [&](uint64_t X) {
        return Layout.layoutWith(Kernel, P.Var, Unit * X).Total;
      };
      auto Ok = [&](uint64_t X) {
        auto T = TotalWith(X);
        return T && Fits(*T);
      };
      if (!Ok(1))
        continue;
      // The largest X below the extent with Ok(X) (at least 1).
      const uint64_t Lo =
          *largest(Extent - 1, [&](uint64_t X) { return X == 0 || Ok(X); });
      const std::string Name = V.ExtentNames[D], Now = std::to_string(Extent);
      const std::string Takes = "'" + V.Name + "' takes ";
      const Suggestion S = suggestExtent(Extent, Lo, constraintsOn(Name));
      if (S.Value ==
          Lo) { // a count (stages), or the bound is itself a value of the kind
        Notes.push_back(makeNote("with " + Name + " = " + std::to_string(Lo) +
                                     " (it is " + Now + "), " + Takes +
                                     bytesPhrase(Unit * Lo) +
                                     " and the kernel " + Goal,
                                 V.Loc));
        Notes.back().Fix = fixFor(V, D, Name, Lo);
      } else if (S.Value) {
        Notes.push_back(makeNote(
            "with " + Name + " = " + std::to_string(S.Value) + " (" +
                (S.Kind == "static_assert"
                     ? "it is " + Now + "; at most " + std::to_string(Lo) +
                           " fits, and its static_asserts allow no more"
                     : S.Kind + ", as it is now: " + Now + "; at most " +
                           std::to_string(Lo) + " fits") +
                "), " + Takes + bytesPhrase(Unit * S.Value) +
                " and the kernel " + Goal,
            V.Loc));
        Notes.back().Fix = fixFor(V, D, Name, S.Value);
      } else // no value of the kind fits: the bound, not an odd value
        Notes.push_back(makeNote(
            "with " + Name + " at most " + std::to_string(Lo) + " (it is " +
                Now +
                (constraintsOn(Name).empty()
                     ? ""
                     : "; no value that small meets its static_asserts") +
                "), " + Takes + "at most " + bytesPhrase(Unit * Lo) +
                " and the kernel " + Goal,
            V.Loc));
    }
  }
  return Notes;
}

std::optional<uint64_t>
FitAdvisor::largest(uint64_t Max, const std::function<bool(uint64_t)> &Ok) {
  if (!Ok(0))
    return std::nullopt;
  uint64_t Lo = 0, Hi = Max;
  while (Lo < Hi) {
    uint64_t Mid = Lo + (Hi - Lo + 1) / 2;
    if (Ok(Mid))
      Lo = Mid;
    else
      Hi = Mid - 1;
  }
  return Lo;
}

void addFitNotes(const KernelReport &K, const FitAdvisor &Fit, uint64_t Limit,
                 uint64_t Dynamic, const Words &Goal, Diagnostic &D) {
  addLaunchNotes(K, D);
  for (Note &N :
       Fit.extentNotes([&](uint64_t T) { return T + Dynamic <= Limit; }, Goal))
    D.Notes.push_back(std::move(N));
}

} // namespace checks
} // namespace tilefit
