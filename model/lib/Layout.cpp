//===- Layout.cpp - ptxas's static shared-memory layout -------------------===//
//
// How nvcc 13 / ptxas lay out a kernel's static shared memory, as observed with
// nvcc/ptxas 13.0 (`nvcc -Xptxas -v`, whole-program mode, no -G). The fixtures
// under tests/fixtures exercise every rule below and the ptxas cross-check
// compiles them.
//
// Placement (ptxas), per kernel:
//  - A variable that only one kernel reaches is emitted inside that kernel's
//  `.entry`; one that
//    several kernels reach, or that a function NVVM keeps out of line refers to
//    (a
//    `__noinline__` or recursive helper), at module scope. ptxas places the
//    kernel's own variables first, then the shared ones, each group in the
//    module's emission order, each variable at the next multiple of its
//    alignment. Nothing is sorted. The figure is the end of the last one.
//  - If any kernel of the unit reaches an `extern __shared__` array, NVVM emits
//  it with
//    `.align max(16, alignof(T))`, and every kernel whose figure is nonzero
//    reports it rounded up to the largest such alignment, even kernels that do
//    not use it.
//
// With -rdc (relocatable device code), ptxas prints a per-object estimate and
// nvlink lays the kernel out when it links the program: every variable the
// kernel reaches, its own and module-scope ones, sorted by alignment (largest
// first) then size (smallest first), each at the next multiple of its
// alignment; a kernel that reaches an `extern __shared__` array has its total
// rounded up to 16, whatever the array's alignment. That linked figure is
// what the program uses (nvlink -v; cudaFuncGetAttributes), and the one
// tilefit reports (KernelReport::LinkedFigure).
//
// Emission order (NVVM's front end), five groups in this order:
//  G1  the walk over the unit in source order: global-namespace variables at
//  their declaration,
//      and the statics of each non-template function when its definition
//      completes (nested lambdas and local classes complete first; within a
//      function, block scopes in pre-order). A reference to a template
//      specialization lists it for instantiation; a template whose return type
//      is `auto` is instantiated right where it is used.
//  G2  at the end of the unit the listed specializations are instantiated in
//  list order; a
//      specialization first referenced while another is instantiated is
//      instantiated at once, depth-first, while one already listed waits for
//      its turn.
//  G3a statics of nested functions (lambdas, local-class members) that contain
//  a lambda or lie
//      inside a lambda's body, in completion order;
//  G3b statics of top-level functions whose body contains a lambda, in
//  completion order; G4  namespace-scope variables: namespaces in order of
//  first opening, a namespace's nested
//      namespaces (recursively) before its own variables, those in declaration
//      order.
//
//===----------------------------------------------------------------------===//
#include "tilefit/model/Layout.h"

#include "tilefit/model/ByteUnits.h"

#include <algorithm>
#include <tuple>

namespace tilefit {
namespace {

/// Runs the walk of NVVM's front end over an EmissionProgram (see the file
/// comment).
class EmissionSimulator {
public:
  EmissionSimulator(const std::vector<SharedVar> &Vars,
                    const EmissionProgram &P)
      : Vars(Vars), P(P), Listed(P.Functions.size(), false),
        Started(P.Functions.size(), false), Emitted(Vars.size(), false) {}

  std::vector<size_t> run() {
    for (const EmissionEvent &E : P.TopLevel)
      step(E);
    AtEnd = true;
    for (size_t I = 0; I < Pending.size(); ++I)
      instantiate(Pending[I]);

    std::vector<size_t> Order;
    for (const auto *G : {&G1, &G2, &G3a, &G3b})
      Order.insert(Order.end(), G->begin(), G->end());
    // G4, then anything the walk did not reach, by declaration.
    std::vector<size_t> Rest;
    for (size_t V = 0; V < Vars.size(); ++V)
      if (!Emitted[V])
        Rest.push_back(V);
    std::stable_sort(Rest.begin(), Rest.end(), [&](size_t A, size_t B) {
      const EmissionFacts &EA = Vars[A].Emission, &EB = Vars[B].Emission;
      bool NA = !EA.Namespaces.empty(), NB = !EB.Namespaces.empty();
      if (NA != NB)
        return NA;
      if (EA.Namespaces != EB.Namespaces)
        return namespaceBefore(EA.Namespaces, EB.Namespaces);
      return EA.DeclOrder < EB.DeclOrder;
    });
    Order.insert(Order.end(), Rest.begin(), Rest.end());
    return Order;
  }

private:
  /// A nested namespace before its parent's own variables: A::B, A::C, A, D.
  static bool namespaceBefore(const std::vector<unsigned> &L,
                              const std::vector<unsigned> &R) {
    size_t Common = 0;
    while (Common < L.size() && Common < R.size() && L[Common] == R[Common])
      ++Common;
    if (Common < L.size() && Common < R.size())
      return L[Common] < R[Common];
    return L.size() > R.size();
  }

  std::vector<size_t> &current() { return AtEnd ? G2 : G1; }

  void emit(std::vector<size_t> &Group, size_t V) {
    if (V < Emitted.size() && !Emitted[V]) {
      Emitted[V] = true;
      Group.push_back(V);
    }
  }

  void step(const EmissionEvent &E) {
    switch (E.K) {
    case EmissionEvent::Kind::Variable:
      emit(current(), E.Index);
      break;
    case EmissionEvent::Kind::Function:
      complete(E.Index);
      break;
    case EmissionEvent::Kind::Instantiate:
      reference(E.Index);
      break;
    }
  }

  void reference(size_t F) {
    if (F >= P.Functions.size() || Started[F])
      return;
    const EmissionFunction &Fn = P.Functions[F];
    // Non-template functions complete at their definition, wherever they are
    // referenced.
    if (!Fn.IsTemplateInstance)
      return;
    if (Fn.ReturnsAuto || (AtEnd && !Listed[F])) {
      Listed[F] = true;
      complete(F);
      return;
    }
    if (!Listed[F]) {
      Listed[F] = true;
      Pending.push_back(F);
    }
  }

  void instantiate(size_t F) {
    if (!Started[F])
      complete(F);
  }

  /// Walks F's body, then places its statics.
  void complete(size_t F) {
    if (F >= P.Functions.size() || Started[F])
      return;
    Started[F] = true;
    const EmissionFunction &Fn = P.Functions[F];
    for (const EmissionEvent &E : Fn.Body)
      step(E);
    std::vector<size_t> *Group = &current();
    if (!Fn.Nested && Fn.ContainsLambda)
      Group = &G3b;
    else if (Fn.Nested && (Fn.ContainsLambda || Fn.InsideLambda))
      Group = &G3a;
    for (size_t V : Fn.Statics)
      emit(*Group, V);
  }

  const std::vector<SharedVar> &Vars;
  const EmissionProgram &P;
  std::vector<bool> Listed, Started, Emitted;
  std::vector<size_t> Pending;
  std::vector<size_t> G1, G2, G3a, G3b;
  bool AtEnd = false;
};

} // namespace

std::vector<size_t> emissionOrder(const std::vector<SharedVar> &Vars,
                                  const EmissionProgram &P) {
  return EmissionSimulator(Vars, P).run();
}

void pruneEmission(EmissionProgram &P) {
  const size_t N = P.Functions.size();
  // A function can place a variable when it has one of its own, or when one
  // it names can: closed over who names whom, backwards. A function the walk
  // starts only takes steps within what its body names, so leaving out those
  // that cannot changes no other function's state.
  std::vector<std::vector<size_t>> NamedBy(N);
  std::vector<char> Keep(N, 0);
  std::vector<size_t> Work;
  for (size_t F = 0; F < N; ++F) {
    const EmissionFunction &Fn = P.Functions[F];
    bool Own = !Fn.Statics.empty();
    for (const EmissionEvent &E : Fn.Body) {
      if (E.K == EmissionEvent::Kind::Variable)
        Own = true;
      else if (E.Index < N)
        NamedBy[E.Index].push_back(F);
    }
    if (Own) {
      Keep[F] = 1;
      Work.push_back(F);
    }
  }
  while (!Work.empty()) {
    const size_t F = Work.back();
    Work.pop_back();
    for (size_t By : NamedBy[F])
      if (!Keep[By]) {
        Keep[By] = 1;
        Work.push_back(By);
      }
  }
  std::vector<size_t> NewIndex(N, 0);
  size_t Kept = 0;
  for (size_t F = 0; F < N; ++F)
    if (Keep[F])
      NewIndex[F] = Kept++;
  // Events naming a function left out (or none: an index out of range, which
  // the walk ignores) go; the others name the function's new index.
  const auto Renumber = [&](std::vector<EmissionEvent> &Events) {
    size_t Out = 0;
    for (EmissionEvent E : Events) {
      if (E.K != EmissionEvent::Kind::Variable) {
        if (E.Index >= N || !Keep[E.Index])
          continue;
        E.Index = NewIndex[E.Index];
      }
      Events[Out++] = E;
    }
    Events.resize(Out);
  };
  std::vector<EmissionFunction> Functions;
  Functions.reserve(Kept);
  for (size_t F = 0; F < N; ++F)
    if (Keep[F]) {
      Functions.push_back(std::move(P.Functions[F]));
      Renumber(Functions.back().Body);
    }
  P.Functions = std::move(Functions);
  Renumber(P.TopLevel);
}

UnitLayout::UnitLayout(const TranslationUnitFacts &TU) : TU(TU) {
  Order = tilefit::emissionOrder(TU.Vars, TU.Emission);
  Rank.assign(TU.Vars.size(), 0);
  for (size_t I = 0; I < Order.size(); ++I)
    Rank[Order[I]] = static_cast<unsigned>(I);

  ReachCount.assign(TU.Vars.size(), 0);
  for (const KernelFacts &K : TU.Kernels)
    for (size_t V : K.Reached)
      ++ReachCount[V];

  // Any `extern __shared__` array a kernel reaches rounds every nonzero total
  // up to the largest such array's alignment, at least 16.
  for (size_t V = 0; V < TU.Vars.size(); ++V)
    if (TU.Vars[V].IsDynamic && ReachCount[V] > 0)
      ExternRounding =
          std::max<uint64_t>(ExternRounding.value_or(16),
                             std::max<uint64_t>(16, TU.Vars[V].Align));
}

KernelLayout UnitLayout::layout(size_t KernelIndex) const {
  return layoutWith(KernelIndex, TU.Vars.size(), 0);
}

KernelLayout UnitLayout::layoutWith(size_t KernelIndex, size_t Changed,
                                    uint64_t NewBytes) const {
  return layoutImpl(KernelIndex, Changed, NewBytes, {}, ExternRounding);
}

std::optional<std::vector<uint64_t>>
UnitLayout::possibleTotals(size_t KernelIndex,
                           std::optional<size_t> &Culprit) const {
  const KernelFacts &K = TU.Kernels[KernelIndex];
  std::vector<size_t> Candidates;
  for (size_t V : K.Reached) {
    const SharedVar &Var = TU.Vars[V];
    if (!Var.IsDynamic && !Var.KernelLocal && ReachCount[V] == 1 &&
        !Var.ReferencedOutOfLine)
      Candidates.push_back(V);
  }
  std::vector<std::optional<uint64_t>> Roundings = {ExternRounding};
  for (size_t V = 0; V < TU.Vars.size(); ++V)
    if (TU.Vars[V].IsDynamic && ReachCount[V] == 0)
      Roundings.push_back(
          std::max<uint64_t>(ExternRounding.value_or(16),
                             std::max<uint64_t>(16, TU.Vars[V].Align)));
  if (Candidates.size() > 10)
    return std::nullopt;
  const uint64_t Base =
      layoutWith(KernelIndex, TU.Vars.size(), 0).Total.value_or(0);
  std::vector<uint64_t> Totals;
  for (uint64_t Mask = 0; Mask < (uint64_t(1) << Candidates.size()); ++Mask) {
    std::vector<size_t> Shared;
    for (size_t I = 0; I < Candidates.size(); ++I)
      if (Mask & (uint64_t(1) << I))
        Shared.push_back(Candidates[I]);
    for (const std::optional<uint64_t> &R : Roundings) {
      KernelLayout L = layoutImpl(KernelIndex, TU.Vars.size(), 0, Shared, R);
      if (!L.Total)
        continue;
      if (*L.Total != Base && !Culprit && Shared.size() == 1 &&
          R == ExternRounding)
        Culprit = Shared.front();
      Totals.push_back(*L.Total);
    }
  }
  if (!Culprit && !Candidates.empty())
    for (const uint64_t T : Totals)
      if (T != Base)
        Culprit = Candidates.front();
  std::sort(Totals.begin(), Totals.end());
  Totals.erase(std::unique(Totals.begin(), Totals.end()), Totals.end());
  return Totals;
}

KernelLayout UnitLayout::layoutImpl(size_t KernelIndex, size_t Changed,
                                    uint64_t NewBytes,
                                    const std::vector<size_t> &AlsoShared,
                                    std::optional<uint64_t> Rounding) const {
  const KernelFacts &K = TU.Kernels[KernelIndex];
  KernelLayout L;

  std::vector<size_t> Static;
  for (size_t V : K.Reached) {
    if (TU.Vars[V].IsDynamic) {
      L.DynamicDeclared = true;
      L.Dynamic.push_back(V);
    } else {
      Static.push_back(V);
    }
  }
  // Own variables first, then module-scope ones; each group in emission order.
  auto SharedNow = [&](size_t V) {
    return ReachCount[V] > 1 || std::find(AlsoShared.begin(), AlsoShared.end(),
                                          V) != AlsoShared.end();
  };
  auto AtModuleScope = [&](size_t V) {
    return SharedNow(V) || TU.Vars[V].ReferencedOutOfLine;
  };
  auto BytesOf = [&](size_t V) {
    return V == Changed ? std::optional<uint64_t>(NewBytes) : TU.Vars[V].Bytes;
  };
  if (TU.RelocatableDeviceCode) {
    // -rdc: nvlink lays out every variable the kernel reaches, its own and
    // module-scope ones alike, largest alignment first, then smallest size;
    // an `extern __shared__` array the kernel reaches rounds the total to 16.
    std::stable_sort(Static.begin(), Static.end(), [&](size_t A, size_t B) {
      const SharedVar &VA = TU.Vars[A], &VB = TU.Vars[B];
      if (VA.Align != VB.Align)
        return VA.Align > VB.Align;
      auto SA = BytesOf(A), SB = BytesOf(B);
      if (SA && SB && *SA != *SB)
        return *SA < *SB;
      return Rank[A] < Rank[B];
    });
    Rounding.reset();
    if (L.DynamicDeclared)
      Rounding = 16;
  } else {
    std::sort(Static.begin(), Static.end(), [&](size_t A, size_t B) {
      bool SA = AtModuleScope(A), SB = AtModuleScope(B);
      if (SA != SB)
        return !SA;
      return Rank[A] < Rank[B];
    });
  }

  std::optional<uint64_t> End = 0;
  for (size_t V : Static) {
    const SharedVar &Var = TU.Vars[V];
    Placement P;
    P.Var = V;
    P.SharedWithOtherKernels = SharedNow(V);
    P.AtModuleScope = AtModuleScope(V);
    std::optional<uint64_t> Bytes = BytesOf(V);
    if (End) {
      if (!Bytes) {
        L.UnknownReason = "the size of '" + Var.QualifiedName +
                          "' is unknown: " + describe(Var.UnknownReason);
        End.reset();
      } else if (auto Start = alignUp(*End, Var.Align)) {
        P.Offset = *Start;
        End = checkedAdd(*Start, *Bytes);
        if (!End) {
          L.UnknownReason = "the total overflows 64 bits";
          L.Overflows = true;
        }
      } else {
        End.reset();
        L.UnknownReason = "the total overflows 64 bits";
        L.Overflows = true;
      }
    }
    L.Placed.push_back(P);
  }
  L.End = End;
  L.Total = End;
  if (End && *End > 0 && Rounding && *End % *Rounding != 0) {
    L.Total = alignUp(*End, *Rounding);
    L.RoundedTo = Rounding;
    if (!L.Total) {
      L.UnknownReason = "the total overflows 64 bits";
      L.Overflows = true;
    }
  }
  return L;
}

} // namespace tilefit
