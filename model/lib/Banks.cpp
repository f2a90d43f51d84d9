//===- Banks.cpp - Shared-memory bank conflicts of one access -------------===//
#include "tilefit/model/Banks.h"

#include <algorithm>
#include <functional>
#include <set>

namespace tilefit {
namespace {

/// Why an evaluation failed.
enum class EvalFailure { None, NeedsBlockDim, Invalid };

std::optional<int64_t> evalNode(const IndexExpr &E, int I, const LaneValues &V,
                                EvalFailure &Fail) {
  if (I < 0 || size_t(I) >= E.Nodes.size()) {
    Fail = EvalFailure::Invalid;
    return std::nullopt;
  }
  const IndexExpr::Node &N = E.Nodes[I];
  using Op = IndexExpr::Op;
  auto Operand = [&](int J) -> std::optional<int64_t> {
    if (J < 0 || J >= I) { // Operands are earlier nodes: no cycles.
      Fail = EvalFailure::Invalid;
      return std::nullopt;
    }
    return evalNode(E, J, V, Fail);
  };
  switch (N.O) {
  case Op::Const:
    return N.Value;
  case Op::ThreadIdx:
    if (N.Value < 0 || N.Value > 2)
      break;
    return V.Tid[N.Value];
  case Op::BlockDim:
    if (N.Value < 0 || N.Value > 2)
      break;
    if (!V.BlockDim) {
      Fail = EvalFailure::NeedsBlockDim;
      return std::nullopt;
    }
    return int64_t((*V.BlockDim)[N.Value]);
  case Op::Counter:
    if (!V.Counters || N.Value < 0 || size_t(N.Value) >= V.Counters->size())
      break;
    return (*V.Counters)[N.Value];
  case Op::Select: {
    auto C = Operand(N.A);
    if (!C)
      return std::nullopt;
    return Operand(*C ? N.B : N.C);
  }
  case Op::LAnd:
  case Op::LOr: {
    auto L = Operand(N.A);
    if (!L)
      return std::nullopt;
    if (N.O == Op::LAnd && !*L)
      return 0;
    if (N.O == Op::LOr && *L)
      return 1;
    auto R = Operand(N.B);
    if (!R)
      return std::nullopt;
    return *R != 0;
  }
  case Op::LNot:
  case Op::Neg:
  case Op::Not: {
    auto L = Operand(N.A);
    if (!L)
      return std::nullopt;
    if (N.O == Op::LNot)
      return !*L;
    if (N.O == Op::Not)
      return ~*L;
    if (*L == INT64_MIN)
      break;
    return -*L;
  }
  default: {
    auto L = Operand(N.A);
    if (!L)
      return std::nullopt;
    auto R = Operand(N.B);
    if (!R)
      return std::nullopt;
    const int64_t A = *L, B = *R;
    int64_t Out = 0;
    switch (N.O) {
    case Op::Add:
      if (__builtin_add_overflow(A, B, &Out))
        break;
      return Out;
    case Op::Sub:
      if (__builtin_sub_overflow(A, B, &Out))
        break;
      return Out;
    case Op::Mul:
      if (__builtin_mul_overflow(A, B, &Out))
        break;
      return Out;
    case Op::Div:
    case Op::Rem:
      if (B == 0 || (A == INT64_MIN && B == -1))
        break;
      return N.O == Op::Div ? A / B : A % B;
    case Op::Shl:
      if (B < 0 || B > 62 || A < 0 || (A >> (62 - B)) != 0)
        break;
      return A << B;
    case Op::Shr:
      if (B < 0 || B > 63)
        break;
      return A >> B;
    case Op::And:
      return A & B;
    case Op::Or:
      return A | B;
    case Op::Xor:
      return A ^ B;
    case Op::Lt:
      return A < B;
    case Op::Le:
      return A <= B;
    case Op::Gt:
      return A > B;
    case Op::Ge:
      return A >= B;
    case Op::Eq:
      return A == B;
    case Op::Ne:
      return A != B;
    default:
      break;
    }
  }
  }
  Fail = EvalFailure::Invalid;
  return std::nullopt;
}

std::optional<int64_t> evaluate(const IndexExpr &E, const LaneValues &V,
                                EvalFailure &Fail) {
  if (E.Nodes.empty())
    return 0;
  return evalNode(E, int(E.Nodes.size()) - 1, V, Fail);
}

/// The verdict for an evaluation that failed.
BankVerdict failed(EvalFailure Fail, const char *What) {
  BankVerdict V;
  V.Why = Fail == EvalFailure::NeedsBlockDim
              ? Reason(ReasonKind::AccessBlockShapeUnknown)
              : Reason(ReasonKind::AccessNotEvaluable, {What});
  return V;
}

const std::pair<IndexExpr::Op, const char *> OpNames[] = {
    {IndexExpr::Op::Const, "const"},
    {IndexExpr::Op::ThreadIdx, "thread_idx"},
    {IndexExpr::Op::BlockDim, "block_dim"},
    {IndexExpr::Op::Counter, "counter"},
    {IndexExpr::Op::Add, "add"},
    {IndexExpr::Op::Sub, "sub"},
    {IndexExpr::Op::Mul, "mul"},
    {IndexExpr::Op::Div, "div"},
    {IndexExpr::Op::Rem, "rem"},
    {IndexExpr::Op::Shl, "shl"},
    {IndexExpr::Op::Shr, "shr"},
    {IndexExpr::Op::And, "and"},
    {IndexExpr::Op::Or, "or"},
    {IndexExpr::Op::Xor, "xor"},
    {IndexExpr::Op::Lt, "lt"},
    {IndexExpr::Op::Le, "le"},
    {IndexExpr::Op::Gt, "gt"},
    {IndexExpr::Op::Ge, "ge"},
    {IndexExpr::Op::Eq, "eq"},
    {IndexExpr::Op::Ne, "ne"},
    {IndexExpr::Op::LAnd, "l_and"},
    {IndexExpr::Op::LOr, "l_or"},
    {IndexExpr::Op::LNot, "l_not"},
    {IndexExpr::Op::Neg, "neg"},
    {IndexExpr::Op::Not, "not"},
    {IndexExpr::Op::Select, "select"},
};

} // namespace

const char *indexOpName(IndexExpr::Op O) {
  for (const auto &[Op, Name] : OpNames)
    if (Op == O)
      return Name;
  return "?";
}

std::optional<IndexExpr::Op> indexOpNamed(const std::string &Name) {
  for (const auto &[Op, N] : OpNames)
    if (Name == N)
      return Op;
  return std::nullopt;
}

std::optional<BankModel> bankModelOf(const ArchCapacity &Arch) {
  if (!Arch.Banks || !Arch.BankBytes || *Arch.Banks == 0 ||
      *Arch.BankBytes == 0)
    return std::nullopt;
  BankModel M;
  M.Banks = unsigned(*Arch.Banks);
  M.BankBytes = unsigned(*Arch.BankBytes);
  M.Phases8Byte = unsigned(Arch.BankPhases8Byte.value_or(2));
  M.Phases16Byte = unsigned(Arch.BankPhases16Byte.value_or(4));
  M.WarpSize = unsigned(Arch.WarpSize.value_or(32));
  M.Source = Arch.BankSource;
  return M;
}

std::optional<int64_t> evaluateIndex(const IndexExpr &E, const LaneValues &V) {
  EvalFailure Fail = EvalFailure::None;
  return evaluate(E, V, Fail);
}

bool usesThreadIndex(const IndexExpr &E) {
  return std::any_of(E.Nodes.begin(), E.Nodes.end(), [](const auto &N) {
    return N.O == IndexExpr::Op::ThreadIdx;
  });
}

BankVerdict analyzeAccess(const SharedAccess &A,
                          const std::vector<AccessLoop> &Loops,
                          const std::vector<uint64_t> &Shape,
                          uint64_t ElementBytes, const BlockShape &Block,
                          const BankModel &Model) {
  BankVerdict Out;
  if (!A.NotAnalysable.empty()) {
    Out.Why = A.NotAnalysable;
    return Out;
  }
  if (A.Width == 0 || A.Subscripts.size() > Shape.size() ||
      Model.WarpSize == 0) {
    Out.Why = {ReasonKind::AccessNotEvaluable, {"its width or rank"}};
    return Out;
  }
  // Each subscript's stride: the bytes of one step of its dimension.
  std::vector<int64_t> Strides(A.Subscripts.size());
  for (size_t K = 0; K < A.Subscripts.size(); ++K) {
    uint64_t Stride = ElementBytes;
    for (size_t J = K + 1; J < Shape.size(); ++J)
      if (__builtin_mul_overflow(Stride, Shape[J], &Stride) ||
          Stride > uint64_t(INT64_MAX)) {
        Out.Why = {ReasonKind::AccessNotEvaluable, {"the variable's size"}};
        return Out;
      }
    Strides[K] = int64_t(Stride);
  }

  // The warps: every warp of a known block; else the first, threadIdx.x =
  // lane.
  uint64_t Threads = Model.WarpSize;
  if (Block.Known &&
      (__builtin_mul_overflow(Block.Dim[0], Block.Dim[1], &Threads) ||
       __builtin_mul_overflow(Threads, Block.Dim[2], &Threads) ||
       Threads == 0)) {
    Out.Why = {ReasonKind::AccessNotEvaluable, {"the block's shape"}};
    return Out;
  }
  const uint64_t Warps = (Threads + Model.WarpSize - 1) / Model.WarpSize;
  std::optional<std::array<uint64_t, 3>> BlockDim;
  if (Block.Known)
    BlockDim = Block.Dim;

  // The counters' values, loop by loop, outermost first.
  size_t CounterSlots = 0;
  for (size_t L : A.Loops)
    CounterSlots = std::max(CounterSlots, L + 1);
  if (CounterSlots > Loops.size()) {
    Out.Why = {ReasonKind::AccessNotEvaluable, {"its loops"}};
    return Out;
  }
  std::vector<int64_t> Counters(CounterSlots, 0);
  std::vector<std::vector<int64_t>> Combos;
  EvalFailure Fail = EvalFailure::None;
  bool TooMany = false;
  std::function<bool(size_t)> Enumerate = [&](size_t Depth) -> bool {
    if (Depth == A.Loops.size()) {
      if (Combos.size() * Warps >= MaxBankRequests) {
        TooMany = true;
        return false;
      }
      Combos.push_back(Counters);
      return true;
    }
    const AccessLoop &L = Loops[A.Loops[Depth]];
    if (usesThreadIndex(L.Init) || usesThreadIndex(L.Condition) ||
        usesThreadIndex(L.Next)) {
      Fail = EvalFailure::Invalid;
      return false;
    }
    LaneValues V;
    V.BlockDim = BlockDim;
    V.Counters = &Counters;
    auto Init = evaluate(L.Init, V, Fail);
    if (!Init)
      return false;
    int64_t &C = Counters[A.Loops[Depth]];
    C = *Init;
    for (uint64_t Step = 0;; ++Step) {
      if (Step >= MaxBankRequests) {
        TooMany = true;
        return false;
      }
      auto Go = evaluate(L.Condition, V, Fail);
      if (!Go)
        return false;
      if (!*Go)
        break;
      if (!Enumerate(Depth + 1))
        return false;
      auto Next = evaluate(L.Next, V, Fail);
      if (!Next)
        return false;
      if (*Next == C) { // A counter that does not move never ends.
        TooMany = true;
        return false;
      }
      C = *Next;
    }
    return true;
  };
  if (!Enumerate(0)) {
    if (TooMany) {
      Out.Why = {ReasonKind::AccessTooManyIterations,
                 {std::to_string(MaxBankRequests)}};
      return Out;
    }
    return failed(Fail, "a loop's bounds");
  }

  const unsigned Phases = Model.phases(A.Width);
  const unsigned PerPhase = std::max(1u, Model.WarpSize / Phases);
  Out.LanesPerPhase = PerPhase;
  Out.Warps = Warps;
  std::vector<bool> WarpActive(Warps, false);
  std::vector<std::optional<int64_t>> Address(Model.WarpSize);
  for (const std::vector<int64_t> &Combo : Combos) {
    for (uint64_t W = 0; W < Warps; ++W) {
      unsigned Active = 0;
      for (unsigned Lane = 0; Lane < Model.WarpSize; ++Lane) {
        Address[Lane].reset();
        const uint64_t Id = W * Model.WarpSize + Lane;
        if (Id >= Threads)
          continue;
        LaneValues V;
        V.BlockDim = BlockDim;
        V.Counters = &Combo;
        if (Block.Known) {
          V.Tid = {int64_t(Id % Block.Dim[0]),
                   int64_t(Id / Block.Dim[0] % Block.Dim[1]),
                   int64_t(Id / (Block.Dim[0] * Block.Dim[1]))};
        } else {
          V.Tid = {int64_t(Lane), 0, 0};
        }
        bool Takes = true;
        for (const IndexExpr &G : A.Guards) {
          auto Value = evaluate(G, V, Fail);
          if (!Value)
            return failed(Fail, "a condition around it");
          Takes &= *Value != 0;
        }
        if (!Takes)
          continue;
        int64_t Addr = 0;
        for (size_t K = 0; K < A.Subscripts.size(); ++K) {
          auto Index = evaluate(A.Subscripts[K], V, Fail);
          int64_t Term = 0;
          if (!Index)
            return failed(Fail, "a subscript");
          if (__builtin_mul_overflow(*Index, Strides[K], &Term) ||
              __builtin_add_overflow(Addr, Term, &Addr))
            return failed(EvalFailure::Invalid, "a subscript");
        }
        auto Extra = evaluate(A.Offset, V, Fail);
        if (!Extra || __builtin_add_overflow(Addr, *Extra, &Addr))
          return failed(Fail, "an offset");
        if (Addr < 0)
          return failed(EvalFailure::Invalid, "a negative address");
        Address[Lane] = Addr;
        ++Active;
      }
      if (Active == 0)
        continue;
      WarpActive[W] = true;
      // Phase by phase: the distinct words each bank delivers.
      std::vector<unsigned> Wavefronts;
      unsigned Degree = 0, WorstBank = 0;
      for (unsigned P = 0; P < Phases; ++P) {
        std::vector<std::set<int64_t>> Words(Model.Banks);
        for (unsigned Lane = P * PerPhase;
             Lane < std::min(Model.WarpSize, (P + 1) * PerPhase); ++Lane) {
          if (!Address[Lane])
            continue;
          const int64_t First = *Address[Lane] / Model.BankBytes;
          const int64_t Last =
              (*Address[Lane] + int64_t(A.Width) - 1) / Model.BankBytes;
          for (int64_t Word = First; Word <= Last; ++Word)
            Words[size_t(Word % Model.Banks)].insert(Word);
        }
        unsigned Most = 0, Bank = 0;
        for (unsigned B = 0; B < Model.Banks; ++B)
          if (Words[B].size() > Most) {
            Most = unsigned(Words[B].size());
            Bank = B;
          }
        Wavefronts.push_back(Most);
        if (Most > Degree) {
          Degree = Most;
          WorstBank = Bank;
        }
      }
      ++Out.Requests;
      Out.Conflicted += Degree > 1;
      if (Degree > Out.Degree || Out.Wavefronts.empty()) {
        Out.Degree = Degree;
        Out.Wavefronts = Wavefronts;
        Out.WorstWarp = W;
        Out.WorstCounters = Combo;
        Out.WorstBank = WorstBank;
        Out.ActiveLanes = Active;
        // Equally spaced lanes: the stride, for messages.
        std::optional<int64_t> Stride, Previous;
        bool Even = true;
        for (const auto &Addr : Address) {
          if (!Addr)
            continue;
          if (Previous) {
            if (Stride && *Stride != *Addr - *Previous)
              Even = false;
            Stride = *Addr - *Previous;
          }
          Previous = Addr;
        }
        Out.LaneStride = Even ? Stride : std::nullopt;
      }
    }
  }
  Out.Analysed = true;
  Out.EveryWarp =
      !WarpActive.empty() && std::all_of(WarpActive.begin(), WarpActive.end(),
                                         [](bool B) { return B; });
  return Out;
}

} // namespace tilefit
