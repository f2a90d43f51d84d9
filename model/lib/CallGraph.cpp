//===- CallGraph.cpp - What each kernel reaches, from the raw call graph --===//
#include "tilefit/model/CallGraph.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

namespace tilefit {

std::vector<size_t> functionsReachedFrom(const TranslationUnitFacts &TU,
                                         size_t Root) {
  std::vector<size_t> Reached;
  std::vector<bool> Seen(TU.Functions.size(), false);
  std::vector<size_t> Work{Root};
  while (!Work.empty()) {
    size_t F = Work.back();
    Work.pop_back();
    if (F >= TU.Functions.size() || Seen[F])
      continue;
    Seen[F] = true;
    Reached.push_back(F);
    const std::vector<size_t> &Callees = TU.Functions[F].Callees;
    for (auto It = Callees.rbegin(); It != Callees.rend(); ++It)
      Work.push_back(*It);
  }
  return Reached;
}

namespace {

/// Whether each function can reach itself through calls (NVVM does not inline
/// those).
class Recursion {
public:
  explicit Recursion(const TranslationUnitFacts &TU) : TU(TU) {}
  bool recursive(size_t Start) {
    auto [It, New] = Known.try_emplace(Start, false);
    if (!New)
      return It->second;
    std::vector<bool> Seen(TU.Functions.size(), false);
    std::vector<size_t> Work{Start};
    bool Found = false;
    while (!Work.empty() && !Found) {
      size_t F = Work.back();
      Work.pop_back();
      for (size_t Callee : TU.Functions[F].Callees) {
        if (Callee == Start) {
          Found = true;
          break;
        }
        if (Callee < Seen.size() && !Seen[Callee]) {
          Seen[Callee] = true;
          Work.push_back(Callee);
        }
      }
    }
    Known[Start] = Found;
    return Found;
  }

private:
  const TranslationUnitFacts &TU;
  std::map<size_t, bool> Known;
};

/// Per-thread arrays live while their scope runs (NVVM inlines the calls, and
/// a call's arrays end when it returns): what the kernel holds at once is at
/// most the arrays of one chain of nested scopes, with those of the heaviest
/// call made in one of them, not every array it reaches. Arrays of sibling
/// scopes (two loops one after the other) are never live together. Those are
/// the kernel's, with every array whose size is unknown (the total is then
/// unknown).
std::vector<size_t> liveLocalArrays(const TranslationUnitFacts &TU, size_t Root,
                                    const std::vector<size_t> &Reached) {
  std::set<size_t> InReach(Reached.begin(), Reached.end());
  struct Heavy {
    uint64_t Bytes = 0;
    std::vector<size_t> Arrays; ///< Those live at the heaviest point.
  };
  std::map<size_t, Heavy> Known;
  std::set<size_t> OnPath;
  std::function<Heavy(size_t)> Weigh = [&](size_t F) -> Heavy {
    if (auto It = Known.find(F); It != Known.end())
      return It->second;
    if (!OnPath.insert(F).second)
      return Heavy(); // a call cycle: its arrays are counted where it was
                      // entered
    const FunctionFacts &Fn = TU.Functions[F];
    const size_t Scopes = std::max<size_t>(1, Fn.ScopeParents.size());
    std::vector<Heavy> InScope(Scopes);
    for (size_t I = 0; I < Fn.LocalArrays.size(); ++I) {
      size_t S = I < Fn.LocalArrayScopes.size() ? Fn.LocalArrayScopes[I] : 0;
      Heavy &H = InScope[S < Scopes ? S : 0];
      H.Bytes += TU.LocalArrays[Fn.LocalArrays[I]].Bytes.value_or(0);
      H.Arrays.push_back(Fn.LocalArrays[I]);
    }
    // The heaviest of what runs inside each scope: a nested scope or a call.
    std::vector<std::optional<Heavy>> Inner(Scopes);
    auto Offer = [&](size_t S, Heavy H) {
      if (!Inner[S] || H.Bytes > Inner[S]->Bytes)
        Inner[S] = std::move(H);
    };
    std::set<size_t> CalledSomewhere;
    for (const auto &[Callee, S] : Fn.CallScopes)
      CalledSomewhere.insert(Callee);
    auto OfferCall = [&](size_t Callee, size_t S) {
      if (Callee < TU.Functions.size() && InReach.count(Callee) && Callee != F)
        Offer(S < Scopes ? S : 0, Weigh(Callee));
    };
    for (size_t Callee : Fn.Callees)
      if (!CalledSomewhere.count(Callee))
        OfferCall(Callee, 0);
    for (const auto &[Callee, S] : Fn.CallScopes)
      OfferCall(Callee, S);
    // Pre-order: every scope's parent comes before it.
    for (size_t S = Scopes; S-- > 0;) {
      Heavy &H = InScope[S];
      if (Inner[S]) {
        H.Bytes += Inner[S]->Bytes;
        H.Arrays.insert(H.Arrays.end(), Inner[S]->Arrays.begin(),
                        Inner[S]->Arrays.end());
      }
      if (S > 0 && Fn.ScopeParents[S] < S)
        Offer(Fn.ScopeParents[S], H);
    }
    OnPath.erase(F);
    return Known[F] = std::move(InScope[0]);
  };
  std::vector<size_t> Live = Weigh(Root).Arrays;
  std::set<size_t> Listed(Live.begin(), Live.end());
  for (size_t F : Reached)
    for (size_t A : TU.Functions[F].LocalArrays)
      if (!TU.LocalArrays[A].Bytes && Listed.insert(A).second)
        Live.push_back(A);
  return Live;
}

} // namespace

bool hasRawCallGraph(const TranslationUnitFacts &TU) {
  return std::any_of(TU.Kernels.begin(), TU.Kernels.end(),
                     [](const KernelFacts &K) { return K.Function.has_value(); });
}

void resolveCallGraph(TranslationUnitFacts &TU) {
  Recursion Cycles(TU);
  for (SharedVar &V : TU.Vars)
    V.ReferencedOutOfLine = false;
  for (KernelFacts &K : TU.Kernels) {
    K.Reached.clear();
    K.Unreferenced.clear();
    K.LocalArrays.clear();
    K.TmemAllocations.clear();
    if (!K.Function || *K.Function >= TU.Functions.size())
      continue;
    const size_t Root = *K.Function;
    const std::vector<size_t> Reached = functionsReachedFrom(TU, Root);

    std::vector<bool> Used(TU.Vars.size(), false);
    for (size_t F : Reached)
      for (size_t V : TU.Functions[F].SharedRefs)
        if (V < Used.size() && !Used[V]) {
          Used[V] = true;
          K.Reached.push_back(V);
        }
    // NVVM inlines device functions into the kernel, except `__noinline__` ones
    // and those on a call cycle; their statics stay at module scope.
    for (size_t F : Reached) {
      if (F == Root || !(TU.Functions[F].NoInline || Cycles.recursive(F)))
        continue;
      for (size_t V : TU.Functions[F].SharedRefs)
        if (V < TU.Vars.size())
          TU.Vars[V].ReferencedOutOfLine = true;
    }
    K.LocalArrays = liveLocalArrays(TU, Root, Reached);
    for (size_t F : Reached) {
      const std::vector<TmemAllocation> &T = TU.Functions[F].Tmem;
      K.TmemAllocations.insert(K.TmemAllocations.end(), T.begin(), T.end());
    }
    for (size_t F : Reached)
      for (size_t V : TU.Functions[F].SharedDecls)
        if (V < Used.size() && !Used[V])
          K.Unreferenced.push_back(V);
  }
}

} // namespace tilefit
