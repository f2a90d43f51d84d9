//===- InventoryRecord.cpp - The closure's part of a precompiled header ---===//
//
// InventoryRecord (SliceClosure.h) as bytes: what the first parse that loads
// a precompiled prefix read of the prefix's declarations, for the next ones,
// which then read none of them. Little-endian integers and length-prefixed
// strings after a magic line; anything that does not read back whole is
// refused, and the parse then reads the declarations itself.
//
//===----------------------------------------------------------------------===//
#include "SliceClosure.h"

#include "llvm/ADT/StringRef.h"

namespace tilefit {
namespace matchers {
namespace slicing {

namespace {

constexpr llvm::StringLiteral Magic = "tilefit inventory 1\n";

class Writer {
public:
  explicit Writer(std::string &Out) : Out(Out) {}
  void u64(uint64_t V) { little(V, 8); }
  void u32(uint32_t V) { little(V, 4); }
  void str(llvm::StringRef S) {
    u32(static_cast<uint32_t>(S.size()));
    Out.append(S.data(), S.size());
  }
  void keys(const std::vector<DeclKey> &K) {
    u32(static_cast<uint32_t>(K.size()));
    for (DeclKey D : K)
      u64(D);
  }
  void names(const ClosureNames &N) {
    u32(static_cast<uint32_t>(N.Direct) |
        static_cast<uint32_t>(N.DefaultConstructsUnknown) << 1 |
        static_cast<uint32_t>(N.ArrayLocal) << 2 |
        static_cast<uint32_t>(N.MaybeArrayLocals) << 3 |
        static_cast<uint32_t>(N.Outside) << 4);
    keys(N.Calls);
    u32(static_cast<uint32_t>(N.Unresolved.size()));
    for (const auto &[Name, A] : N.Unresolved) {
      u32(Name);
      u32(A);
    }
    keys(N.DefaultConstructed);
    keys(N.Mentions);
  }

private:
  void little(uint64_t V, unsigned Bytes) {
    for (unsigned I = 0; I < Bytes; ++I)
      Out.push_back(static_cast<char>((V >> (8 * I)) & 0xff));
  }
  std::string &Out;
};

class Reader {
public:
  explicit Reader(llvm::StringRef In) : In(In) {}
  bool ok() const { return Ok; }
  bool done() const { return Ok && In.empty(); }
  uint64_t u64() { return little(8); }
  uint32_t u32() { return static_cast<uint32_t>(little(4)); }
  /// A count of items at least \p MinBytes long each, bounded by what is
  /// left.
  size_t count(size_t MinBytes) {
    const uint32_t N = u32();
    if (Ok && uint64_t(N) * MinBytes > In.size())
      Ok = false;
    return Ok ? N : 0;
  }
  std::string str() {
    const uint32_t N = u32();
    if (!take(N))
      return std::string();
    return Taken.str();
  }
  void keys(std::vector<DeclKey> &K) {
    const size_t N = count(8);
    K.reserve(N);
    for (size_t I = 0; I < N && Ok; ++I)
      K.push_back(u64());
  }
  void names(ClosureNames &N, uint32_t Names) {
    const uint32_t Flags = u32();
    N.Direct = Flags & 1;
    N.DefaultConstructsUnknown = Flags & 2;
    N.ArrayLocal = Flags & 4;
    N.MaybeArrayLocals = Flags & 8;
    N.Outside = static_cast<uint8_t>(Flags >> 4);
    if (N.Outside > OutsideArrays::Exact)
      Ok = false;
    keys(N.Calls);
    const size_t U = count(8);
    N.Unresolved.reserve(U);
    for (size_t I = 0; I < U && Ok; ++I) {
      const uint32_t Name = u32();
      const uint32_t A = u32();
      if (Name >= Names)
        Ok = false;
      N.Unresolved.push_back({Name, A});
    }
    keys(N.DefaultConstructed);
    keys(N.Mentions);
  }

private:
  uint64_t little(unsigned Bytes) {
    if (!take(Bytes))
      return 0;
    uint64_t V = 0;
    for (unsigned I = 0; I < Bytes; ++I)
      V |= uint64_t(static_cast<unsigned char>(Taken[I])) << (8 * I);
    return V;
  }
  bool take(size_t N) {
    if (!Ok || In.size() < N) {
      Ok = false;
      return false;
    }
    Taken = In.take_front(N);
    In = In.drop_front(N);
    return true;
  }
  llvm::StringRef In, Taken;
  bool Ok = true;
};

} // namespace

std::string InventoryRecord::serialize() const {
  std::string Out(Magic);
  Writer W(Out);
  W.u32(Relocatable);
  W.u32(static_cast<uint32_t>(NameTable.size()));
  for (const std::string &N : NameTable)
    W.str(N);
  W.u32(static_cast<uint32_t>(Input.Nodes.size()));
  for (const ClosureNode &F : Input.Nodes) {
    W.u64(F.FnKey);
    W.u64(F.Node);
    W.u64(F.DefaultConstructorOf);
    W.u32(F.Name);
    W.u32(F.Accepts);
    W.u32(static_cast<uint32_t>(F.DeviceCallable) |
          static_cast<uint32_t>(F.CalledUnnamed) << 1 |
          static_cast<uint32_t>(F.Sliceable) << 2);
    W.names(F.N);
    W.names(F.Lambdas);
  }
  W.u32(static_cast<uint32_t>(Input.Initializers.size()));
  for (const InitializerNode &I : Input.Initializers) {
    W.u64(I.Class);
    W.names(I.N);
  }
  W.u32(static_cast<uint32_t>(Input.LedToBy.size()));
  for (const auto &[To, By] : Input.LedToBy) {
    W.u64(To);
    W.keys(By);
  }
  W.u32(static_cast<uint32_t>(Input.SharedNames.size()));
  for (uint32_t N : Input.SharedNames)
    W.u32(N);
  W.keys(Input.SharedAliases);
  W.keys(Input.Flowing);
  W.u32(static_cast<uint32_t>(UnresolvedNames.size()));
  for (const auto &N : UnresolvedNames)
    W.str(N.getKey());
  return Out;
}

bool InventoryRecord::deserialize(llvm::StringRef Bytes, InventoryRecord &Out) {
  Out = InventoryRecord();
  if (!Bytes.consume_front(Magic))
    return false;
  Reader R(Bytes);
  Out.Relocatable = R.u32() != 0;
  const size_t Names = R.count(4);
  Out.NameTable.reserve(Names);
  for (size_t I = 0; I < Names && R.ok(); ++I)
    Out.NameTable.push_back(R.str());
  const uint32_t Table = static_cast<uint32_t>(Out.NameTable.size());
  const size_t Nodes = R.count(40);
  Out.Input.Nodes.reserve(Nodes);
  for (size_t I = 0; I < Nodes && R.ok(); ++I) {
    ClosureNode F;
    F.FnKey = R.u64();
    F.Node = R.u64();
    F.DefaultConstructorOf = R.u64();
    F.Name = R.u32();
    F.Accepts = R.u32();
    const uint32_t Flags = R.u32();
    F.DeviceCallable = Flags & 1;
    F.CalledUnnamed = Flags & 2;
    F.Sliceable = Flags & 4;
    R.names(F.N, Table);
    R.names(F.Lambdas, Table);
    // Recorded keys are a precompiled header's IDs, all odd.
    if (F.Name >= Table || !(F.FnKey & 1) || !(F.Node & 1))
      return false;
    Out.Input.Nodes.push_back(std::move(F));
  }
  const size_t Inits = R.count(12);
  for (size_t I = 0; I < Inits && R.ok(); ++I) {
    InitializerNode N;
    N.Class = R.u64();
    R.names(N.N, Table);
    Out.Input.Initializers.push_back(std::move(N));
  }
  const size_t Leads = R.count(12);
  for (size_t I = 0; I < Leads && R.ok(); ++I) {
    const DeclKey To = R.u64();
    std::vector<DeclKey> By;
    R.keys(By);
    Out.Input.LedToBy.push_back({To, std::move(By)});
  }
  const size_t Shared = R.count(4);
  for (size_t I = 0; I < Shared && R.ok(); ++I) {
    const uint32_t N = R.u32();
    if (N >= Table)
      return false;
    Out.Input.SharedNames.push_back(N);
  }
  R.keys(Out.Input.SharedAliases);
  R.keys(Out.Input.Flowing);
  const size_t Unresolved = R.count(4);
  for (size_t I = 0; I < Unresolved && R.ok(); ++I)
    Out.UnresolvedNames.insert(R.str());
  return R.done();
}

} // namespace slicing
} // namespace matchers
} // namespace tilefit
