//===- BankOracle.cpp - Bank conflicts by brute force, for tests ---------===//
#include "BankOracle.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <stdexcept>

namespace tilefit {
namespace test {
namespace {

struct Failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Env {
  long long Tid[3] = {0, 0, 0};
  long long Dim[3] = {0, 0, 0};
  bool DimKnown = false;
  std::map<size_t, long long> Counters;
};

long long eval(const IndexExpr &E, int I, const Env &V) {
  if (I < 0 || size_t(I) >= E.Nodes.size())
    throw Failure("bad node");
  const IndexExpr::Node &N = E.Nodes[size_t(I)];
  using Op = IndexExpr::Op;
  auto L = [&] { return eval(E, N.A, V); };
  auto R = [&] { return eval(E, N.B, V); };
  switch (N.O) {
  case Op::Const:
    return N.Value;
  case Op::ThreadIdx:
    return V.Tid[N.Value];
  case Op::BlockDim:
    if (!V.DimKnown)
      throw Failure("blockDim unknown");
    return V.Dim[N.Value];
  case Op::Counter: {
    auto It = V.Counters.find(size_t(N.Value));
    if (It == V.Counters.end())
      throw Failure("counter without a loop");
    return It->second;
  }
  case Op::Add:
    return L() + R();
  case Op::Sub:
    return L() - R();
  case Op::Mul:
    return L() * R();
  case Op::Div: {
    long long D = R();
    if (!D)
      throw Failure("/0");
    return L() / D;
  }
  case Op::Rem: {
    long long D = R();
    if (!D)
      throw Failure("%0");
    return L() % D;
  }
  case Op::Shl:
    return L() << R();
  case Op::Shr:
    return L() >> R();
  case Op::And:
    return L() & R();
  case Op::Or:
    return L() | R();
  case Op::Xor:
    return L() ^ R();
  case Op::Lt:
    return L() < R();
  case Op::Le:
    return L() <= R();
  case Op::Gt:
    return L() > R();
  case Op::Ge:
    return L() >= R();
  case Op::Eq:
    return L() == R();
  case Op::Ne:
    return L() != R();
  case Op::LAnd:
    return L() && R();
  case Op::LOr:
    return L() || R();
  case Op::LNot:
    return !L();
  case Op::Neg:
    return -L();
  case Op::Not:
    return ~L();
  case Op::Select:
    return L() ? R() : eval(E, N.C, V);
  }
  throw Failure("unknown operation");
}

long long eval(const IndexExpr &E, const Env &V) {
  return E.Nodes.empty() ? 0 : eval(E, int(E.Nodes.size()) - 1, V);
}

} // namespace

BankOracleResult bankOracle(const BankAccessReport &B) {
  BankOracleResult Out;
  const SharedAccess &A = B.Access;
  try {
    const long long Dx = (long long)B.Block.Dim[0],
                    Dy = (long long)B.Block.Dim[1],
                    Dz = (long long)B.Block.Dim[2];
    const long long Threads = B.Block.Known ? Dx * Dy * Dz : 32;
    // Strides from the shape, innermost last.
    std::vector<long long> Stride(A.Subscripts.size(), 0);
    for (size_t K = 0; K < A.Subscripts.size(); ++K) {
      long long S = (long long)B.Var.ElementBytes;
      for (size_t J = K + 1; J < B.Var.Shape.size(); ++J)
        S *= (long long)B.Var.Shape[J];
      Stride[K] = S;
    }
    // Every combination of the counters, outermost loop first.
    std::vector<std::map<size_t, long long>> Iterations;
    Env Base;
    Base.DimKnown = B.Block.Known;
    Base.Dim[0] = Dx, Base.Dim[1] = Dy, Base.Dim[2] = Dz;
    std::function<void(size_t, Env &)> Walk = [&](size_t D, Env &V) {
      if (D == A.Loops.size()) {
        Iterations.push_back(V.Counters);
        return;
      }
      const size_t L = A.Loops[D];
      if (L >= B.Loops.size())
        throw Failure("a loop the report lacks");
      const AccessLoop &Loop = B.Loops[L];
      for (V.Counters[L] = eval(Loop.Init, V); eval(Loop.Condition, V);
           V.Counters[L] = eval(Loop.Next, V)) {
        if (Iterations.size() > 100000)
          throw Failure("too many iterations");
        Walk(D + 1, V);
      }
      V.Counters.erase(L);
    };
    Walk(0, Base);
    const int Lanes = A.Width >= 16 ? 8 : A.Width >= 8 ? 16 : 32;
    for (const auto &Counters : Iterations)
      for (long long Warp = 0; Warp * 32 < Threads; ++Warp)
        for (int Phase = 0; Phase < 32 / Lanes; ++Phase) {
          std::map<long long, std::set<long long>> Bank;
          for (int Lane = Phase * Lanes; Lane < (Phase + 1) * Lanes; ++Lane) {
            const long long Id = Warp * 32 + Lane;
            if (Id >= Threads)
              continue;
            Env V = Base;
            V.Counters = Counters;
            if (B.Block.Known) {
              V.Tid[0] = Id % Dx;
              V.Tid[1] = (Id / Dx) % Dy;
              V.Tid[2] = Id / (Dx * Dy);
            } else {
              V.Tid[0] = Lane;
            }
            bool Active = true;
            for (const IndexExpr &G : A.Guards)
              Active = Active && eval(G, V) != 0;
            if (!Active)
              continue;
            long long Address = eval(A.Offset, V);
            for (size_t K = 0; K < A.Subscripts.size(); ++K)
              Address += eval(A.Subscripts[K], V) * Stride[K];
            for (long long Byte = Address; Byte < Address + A.Width; Byte += 4)
              Bank[(Byte / 4) % 32].insert(Byte / 4);
            if (A.Width < 4)
              Bank[(Address / 4) % 32].insert(Address / 4);
          }
          for (const auto &[Id, Words] : Bank)
            Out.Degree = std::max(Out.Degree, unsigned(Words.size()));
        }
    Out.Ok = true;
  } catch (const Failure &F) {
    Out.Why = F.what();
  }
  return Out;
}

} // namespace test
} // namespace tilefit
