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

/// Per-thread arrays live while their function runs (NVVM inlines the calls,
/// and a call's arrays end when it returns): what the kernel holds at once is
/// at most its own arrays plus those of its heaviest chain of calls, not every
/// array it reaches. Those are the kernel's, with every array whose size is
/// unknown (the total is then unknown).
std::vector<size_t> liveLocalArrays(const TranslationUnitFacts &TU, size_t Root,
                                    const std::vector<size_t> &Reached) {
  std::set<size_t> InReach(Reached.begin(), Reached.end());
  struct Chain {
    uint64_t Bytes = 0;
    std::optional<size_t> Next; ///< The heaviest callee, if any.
  };
  std::map<size_t, Chain> Heaviest;
  std::set<size_t> OnPath;
  std::function<uint64_t(size_t)> Weigh = [&](size_t F) -> uint64_t {
    if (auto It = Heaviest.find(F); It != Heaviest.end())
      return It->second.Bytes;
    if (!OnPath.insert(F).second)
      return 0; // a call cycle: its arrays are counted where it was entered
    Chain C;
    for (size_t A : TU.Functions[F].LocalArrays)
      C.Bytes += TU.LocalArrays[A].Bytes.value_or(0);
    uint64_t Below = 0;
    for (size_t Callee : TU.Functions[F].Callees) {
      if (!InReach.count(Callee) || Callee == F)
        continue;
      if (uint64_t W = Weigh(Callee); !C.Next || W > Below) {
        Below = W;
        C.Next = Callee;
      }
    }
    C.Bytes += Below;
    OnPath.erase(F);
    Heaviest[F] = C;
    return C.Bytes;
  };
  Weigh(Root);
  std::vector<size_t> Live;
  std::set<size_t> Listed;
  for (std::optional<size_t> F = Root; F && Listed.insert(*F).second;
       F = Heaviest[*F].Next)
    for (size_t A : TU.Functions[*F].LocalArrays)
      Live.push_back(A);
  for (size_t F : Reached)
    if (!Listed.count(F))
      for (size_t A : TU.Functions[F].LocalArrays)
        if (!TU.LocalArrays[A].Bytes)
          Live.push_back(A);
  return Live;
}

} // namespace

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
