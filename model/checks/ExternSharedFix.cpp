//===- ExternSharedFix.cpp - Make a static tile `extern __shared__` -------===//
//
// The quick fix for a kernel above the static limit: its largest array becomes
// a view of dynamic shared memory, and every launch asks for the bytes (with
// the opt-in above the default per-block limit). Offered only where the edit is
// mechanical: the declaration and every launch of every kernel that shares it
// are written plainly (WrittenDeclaration, WrittenLaunch), the kernels reach
// no other `extern __shared__` array, and the result fits the opt-in limit.
//
//===----------------------------------------------------------------------===//
#include "CheckSupport.h"

#include <algorithm>
#include <set>

namespace tilefit {
namespace checks {
namespace {

bool samePos(const SourcePos &A, const SourcePos &B) {
  return A.File == B.File && A.Line == B.Line && A.Column == B.Column;
}

/// The edits of one launch of a kernel that now asks for \p Bytes: the opt-in
/// before the statement, the bytes in its configuration.
void launchEdits(const WrittenLaunch &W, uint64_t Bytes,
                 std::vector<TextEdit> &Edits) {
  const std::string N = std::to_string(Bytes);
  Edits.push_back({W.Statement, 0,
                   "cudaFuncSetAttribute(" + W.Kernel +
                       ", cudaFuncAttributeMaxDynamicSharedMemorySize, " + N +
                       ");\n" + W.Indent});
  if (W.Bytes.Length) // the `0` written as the bytes argument
    Edits.push_back({W.Bytes.Loc, W.Bytes.Length, N});
  else // none written: before `>>>`
    Edits.push_back({W.Bytes.Loc, 0, ", " + N});
}

} // namespace

std::optional<FixIt> FitAdvisor::externFix(const KernelReport &K) const {
  if (Kernel >= TU.Kernels.size() || K.DynamicDeclared || !K.Limit.StaticMax ||
      !K.Limit.BlockOptinMax)
    return std::nullopt;
  // The largest variable, as allocationNotes puts it first.
  const KernelLayout Now = Layout.layout(Kernel);
  const Placement *Largest = nullptr;
  for (const Placement &P : Now.Placed)
    if (!Largest || TU.Vars[P.Var].Bytes.value_or(0) >
                        TU.Vars[Largest->Var].Bytes.value_or(0))
      Largest = &P;
  if (!Largest)
    return std::nullopt;
  const SharedVar &V = TU.Vars[Largest->Var];
  if (!V.Bytes || !V.KernelLocal || V.IsDynamic || !V.Written.valid() ||
      V.Align > 16 || Largest->SharedWithOtherKernels)
    return std::nullopt;
  // Without it, the kernel's static part must fit, and with it the opt-in.
  const KernelLayout Without = Layout.layoutWith(Kernel, Largest->Var, 0);
  if (!Without.Total || *Without.Total > *K.Limit.StaticMax ||
      *Without.Total + *V.Bytes > *K.Limit.BlockOptinMax)
    return std::nullopt;

  std::vector<TextEdit> Edits;
  const std::string Storage = V.Name + "_storage";
  Edits.push_back({V.Written.Span.Loc, V.Written.Span.Length,
                   "extern __shared__ __align__(16) unsigned char " + Storage +
                       "[];\n" + V.Written.Indent + V.Written.Element + " (&" +
                       V.Name + ")" + V.Written.Extents +
                       " = *reinterpret_cast<" + V.Written.Element + " (*)" +
                       V.Written.Extents + ">(" + Storage + ")"});
  // Every kernel that declares it (each instantiation of a template) is
  // launched here, plainly, with no dynamic memory yet: each launch asks for
  // its own instantiation's bytes.
  size_t Launches = 0;
  for (size_t I = 0; I < TU.Kernels.size(); ++I) {
    const KernelLayout L = I == Kernel ? Now : Layout.layout(I);
    const Placement *Mine = nullptr;
    for (const Placement &P : L.Placed)
      if (samePos(TU.Vars[P.Var].Loc, V.Loc) && TU.Vars[P.Var].Name == V.Name)
        Mine = &P;
    if (!Mine)
      continue;
    const KernelFacts &KF = TU.Kernels[I];
    const std::optional<uint64_t> Bytes = TU.Vars[Mine->Var].Bytes;
    if (!Bytes || KF.Launches.empty() || !KF.Attributes.empty())
      return std::nullopt;
    for (const LaunchSite &S : KF.Launches) {
      if (S.Form != "<<<>>>" || S.DynamicBytes != uint64_t(0) ||
          !S.Written.valid())
        return std::nullopt;
      launchEdits(S.Written, *Bytes, Edits);
      ++Launches;
    }
  }
  // Two launches on one line would edit the same place twice.
  std::set<std::pair<std::string, std::pair<unsigned, unsigned>>> At;
  for (const TextEdit &E : Edits)
    if (!At.insert({E.At.File, {E.At.Line, E.At.Column}}).second)
      return std::nullopt;
  return FixIt{"make '" + V.Name + "' extern __shared__ and request its " +
                   std::to_string(*V.Bytes) + " bytes at " +
                   (Launches == 1 ? std::string("its launch")
                                  : std::to_string(Launches) + " launches"),
               std::move(Edits)};
}

} // namespace checks
} // namespace tilefit
