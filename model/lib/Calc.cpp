//===- Calc.cpp - The footprint calculator
//---------------------------------===//
#include "tilefit/model/Calc.h"

#include "tilefit/model/Arch.h"
#include "tilefit/model/ByteUnits.h"

#include <algorithm>
#include <numeric>
#include <tuple>

namespace tilefit {
namespace {

ErrorMessage error(std::string Text) { return ErrorMessage{std::move(Text)}; }

std::string join(const std::vector<std::string> &Parts, const char *Sep) {
  std::string Out;
  for (const std::string &P : Parts)
    Out += (Out.empty() ? "" : Sep) + P;
  return Out;
}

/// ceil(A / B), B > 0, without overflow.
uint64_t ceilDiv(uint64_t A, uint64_t B) { return A / B + (A % B != 0); }

ErrorMessage unknownType(const std::string &Name) {
  std::vector<std::string> Short, Cuda;
  for (const ElementType &T : elementTypes()) {
    Short.push_back(T.Name);
    Cuda.insert(Cuda.end(), T.CudaNames.begin(), T.CudaNames.end());
  }
  std::string Msg =
      "unknown element type '" + Name + "'; known: " + join(Short, ", ") +
      "; or as CUDA spells them: " + join(Cuda, ", ") +
      " (and the short names of PyTorch and CUTLASS: bf16, fp16, e4m3, nvfp4, "
      "...; tilefit calc --list-dtypes)";
  // CUDA's vector types (__nv_fp4x2_e2m1, __nv_fp6x4_e2m3) hold several values
  // per element.
  if (Name.rfind("__nv_fp", 0) == 0 && (Name.find("x2_") != std::string::npos ||
                                        Name.find("x4_") != std::string::npos))
    Msg += " ('" + Name +
           "' holds several values: give the count of values and their scalar "
           "type, e.g. float4_e2m1fn for packed fp4)";
  return error(Msg);
}

/// The database's architectures, oldest first (sm_75 before sm_100).
std::vector<std::string> archNames(const CapacityDatabase &Db) {
  std::vector<std::string> Names = Db.names();
  auto Key = [](const std::string &N) {
    auto A = parseArch(N);
    return std::make_tuple(A ? A->Number : ~0u, A ? A->Suffix : 0, N);
  };
  std::sort(Names.begin(), Names.end(),
            [&](const std::string &L, const std::string &R) {
              return Key(L) < Key(R);
            });
  return Names;
}

/// The base architectures whose Tensor Memory the database knows to be there.
std::vector<std::string> archsWithTmem(const CapacityDatabase &Db) {
  std::vector<std::string> Out;
  for (const std::string &Name : archNames(Db)) {
    auto A = parseArch(Name);
    const ArchCapacity *C = Db.lookup(Name);
    if (A && !A->Suffix && C && C->TensorMemoryColumns.value_or(0) > 0)
      Out.push_back(Name);
  }
  return Out;
}

/// The fit of \p R against \p C for its scope; adds notes to \p R.
Result<CalcFit> archFit(CalcResult &R, const std::string &Arch,
                        const ArchCapacity &C, const CapacityDatabase &Db) {
  CalcFit F;
  F.Arch = Arch;
  F.Used = R.TotalBytes;
  auto Unknown = [&](const char *What, const char *Field) {
    return error("the capacity database does not know " + Arch + "'s " + What +
                 " (" + Field + " is unknown)");
  };
  switch (R.Scope) {
  case CalcScope::Shared:
    if (!C.BlockOptinMax)
      return Unknown("shared memory per block",
                     "shared_memory.block_optin_max");
    F.Field = "shared_memory.block_optin_max";
    F.Basis = "per block with opt-in";
    F.Capacity = *C.BlockOptinMax;
    if (C.BlockDefaultMax && R.TotalBytes > *C.BlockDefaultMax &&
        R.TotalBytes <= F.Capacity)
      R.Notes.push_back(
          "more than " + std::to_string(*C.BlockDefaultMax) +
          " bytes per block needs dynamic shared memory and opting in with "
          "cudaFuncAttributeMaxDynamicSharedMemorySize");
    break;
  case CalcScope::Registers: {
    if (!C.RegistersPerThread)
      return Unknown("registers per thread", "registers.per_thread");
    F.Field = "registers.per_thread";
    F.Basis = "per thread";
    F.RegisterLimit = *C.RegistersPerThread;
    F.Capacity = *C.RegistersPerThread * 4;
    F.Used = *R.RegistersPerThread *
             4; // Below 2^64: the bytes per thread fit, rounded to 4.
    uint64_t Threads = *R.Threads;
    if (C.ThreadsPerBlock && Threads > *C.ThreadsPerBlock)
      F.Problems.push_back(countPhrase(Threads, "thread", "threads") +
                           ": a block on " + Arch + " has at most " +
                           std::to_string(*C.ThreadsPerBlock) +
                           " (threads.per_block)");
    if (C.RegistersPerBlock) {
      F.Field += ", registers.per_block";
      F.RegisterLimitPerBlock = *C.RegistersPerBlock;
      auto Block = checkedMul(*R.RegistersPerThread, Threads);
      if (Block)
        F.RegistersPerBlock = *Block;
      if (!Block || *Block > *C.RegistersPerBlock)
        F.Problems.push_back(
            countPhrase(Threads, "thread", "threads") + " x " +
            countPhrase(*R.RegistersPerThread, "register", "registers") +
            " = " +
            (Block ? std::to_string(*Block) : std::string("more than 2^64")) +
            " registers, more than the " +
            std::to_string(*C.RegistersPerBlock) +
            " of a block (registers.per_block)");
    }
    break;
  }
  case CalcScope::Tmem: {
    if (!C.TensorMemoryColumns)
      return Unknown("tensor memory", "tensor_memory.columns");
    if (*C.TensorMemoryColumns == 0)
      return error("no tensor memory on " + Arch +
                   " (the capacity database has it on " +
                   join(archsWithTmem(Db), ", ") + " and their a/f variants)");
    F.Field = "tensor_memory.columns";
    F.Basis = "per SM, " + std::to_string(*C.TensorMemoryColumns) +
              " columns x " + std::to_string(TmemLanes) + " lanes x " +
              std::to_string(TmemCellBytes) + " bytes";
    F.Capacity = *C.TensorMemoryColumns * TmemLanes *
                 TmemCellBytes; // Columns are below 2^40.
    F.TmemColumnsAvailable = *C.TensorMemoryColumns;
    F.TmemColumns = ceilDiv(R.TotalBytes, TmemLanes * TmemCellBytes);
    auto A = parseArch(Arch);
    if (A && !A->Suffix)
      R.Notes.push_back(
          "tcgen05.alloc needs an architecture-specific target: " + Arch +
          "a or " + Arch + "f");
    break;
  }
  }
  return F;
}

void finishFit(CalcFit &F) {
  F.Fits = F.Used <= F.Capacity && F.Problems.empty();
  F.Headroom = F.Fits ? F.Capacity - F.Used : 0;
  F.Over = F.Used > F.Capacity ? F.Used - F.Capacity : 0;
}

} // namespace

std::string tileText(const std::vector<uint64_t> &Tile) {
  std::vector<std::string> Dims;
  for (uint64_t D : Tile)
    Dims.push_back(std::to_string(D));
  return join(Dims, " x ");
}

std::string ElementType::packing() const {
  if (Bits < 8) {
    unsigned G = std::gcd(Bits, 8u);
    unsigned Values = 8 / G, Bytes = Bits / G;
    return std::to_string(Values) + " per " +
           (Bytes == 1 ? "byte" : std::to_string(Bytes) + " bytes");
  }
  if (Bits == 8)
    return "1 per byte";
  return std::to_string(Bits / 8) + " bytes each";
}

const std::vector<ElementType> &elementTypes() {
  static const std::vector<ElementType> Types = {
      {"bool", {"bool"}, {}, 8, 8, "one byte each, as C++ stores bool"},
      {"int4",
       {},
       {"s4", "i4", "int4b_t", "int4_t"},
       4,
       4,
       "a 4-bit integer, not CUDA's int4 (a vector of four ints, 16 bytes)"},
      {"int8", {"int8_t", "signed char", "char"}, {"s8", "i8"}, 8, 8, ""},
      {"uint8", {"uint8_t", "unsigned char"}, {"u8"}, 8, 8, ""},
      {"float8_e4m3fn",
       {"__nv_fp8_e4m3"},
       {"e4m3", "e4m3fn", "fp8", "fp8_e4m3", "float8_e4m3", "float_e4m3_t",
        "mxfp8"},
       8,
       8,
       "mxfp8: its scale factors (one byte per 32 values) are not counted"},
      {"float8_e5m2",
       {"__nv_fp8_e5m2"},
       {"e5m2", "fp8_e5m2", "float_e5m2_t"},
       8,
       8,
       ""},
      {"float6_e2m3fn",
       {},
       {"e2m3", "fp6", "fp6_e2m3", "float_e2m3_t", "mxfp6"},
       6,
       6,
       "packed by bits"},
      {"float6_e2m3fn_unpacked",
       {"__nv_fp6_e2m3"},
       {},
       8,
       6,
       "one value per byte (CUDA's sizeof 1)"},
      {"float6_e3m2fn",
       {},
       {"e3m2", "fp6_e3m2", "float_e3m2_t"},
       6,
       6,
       "packed by bits"},
      {"float6_e3m2fn_unpacked",
       {"__nv_fp6_e3m2"},
       {},
       8,
       6,
       "one value per byte (CUDA's sizeof 1)"},
      {"float4_e2m1fn",
       {},
       {"e2m1", "fp4", "fp4_e2m1", "float_e2m1_t", "float4_e2m1fn_x2", "nvfp4",
        "mxfp4"},
       4,
       4,
       "packed, as __nv_fp4x2_e2m1 holds them; nvfp4/mxfp4: their scale "
       "factors are not counted"},
      {"float4_e2m1fn_unpacked",
       {"__nv_fp4_e2m1"},
       {},
       8,
       4,
       "one value per byte (CUDA's sizeof 1)"},
      {"float16", {"__half", "half"}, {"fp16", "f16", "half_t"}, 16, 16, ""},
      {"bfloat16",
       {"__nv_bfloat16", "nv_bfloat16"},
       {"bf16", "bfloat16_t"},
       16,
       16,
       ""},
      {"float32",
       {"float"},
       {"fp32", "f32", "tf32", "tfloat32_t"},
       32,
       32,
       "tf32 is stored in 32 bits"},
      {"float64", {"double"}, {"fp64", "f64"}, 64, 64, ""},
  };
  return Types;
}

const ElementType *findElementType(std::string_view Name) {
  // Case aside, and without the namespace people write it in (torch.float16,
  // cutlass::half_t, cute::half_t, torch::kBFloat16 is not a spelling).
  auto Normal = [](std::string_view S) {
    std::string L;
    for (char C : S)
      L += static_cast<char>(C >= 'A' && C <= 'Z' ? C - 'A' + 'a' : C);
    for (std::string_view Prefix :
         {"torch.", "cutlass::", "cute::", "numpy.", "np."})
      if (L.rfind(Prefix, 0) == 0)
        return L.substr(Prefix.size());
    return L;
  };
  const std::string Want = Normal(Name);
  for (const ElementType &T : elementTypes()) {
    if (Normal(T.Name) == Want)
      return &T;
    for (const std::vector<std::string> *Names : {&T.CudaNames, &T.Aliases})
      for (const std::string &N : *Names)
        if (Normal(N) == Want)
          return &T;
  }
  return nullptr;
}

const std::vector<ScopeInfo> &calcScopes() {
  static const std::vector<ScopeInfo> Scopes = {
      {CalcScope::Shared, "shared",
       "the whole tile, all versions (one block's shared memory)",
       "per block with opt-in: shared_memory.block_optin_max"},
      {CalcScope::Registers, "registers",
       "each thread's share, ceil(total / --threads) bytes in whole 32-bit "
       "registers (the "
       "arrays alone, before the compiler's own registers); needs --threads",
       "per thread: registers.per_thread x 4 bytes; and for the block, "
       "--threads x the registers "
       "per thread within registers.per_block"},
      {CalcScope::Tmem, "tmem",
       "the whole tile, all versions (Tensor Memory, allocated per CTA)",
       "per SM: tensor_memory.columns x 128 lanes x 4 bytes (256 KiB on "
       "sm_100, sm_103, sm_110); "
       "none elsewhere"},
  };
  return Scopes;
}

std::optional<CalcScope> parseCalcScope(std::string_view Name) {
  for (const ScopeInfo &S : calcScopes())
    if (S.Name == Name)
      return S.Scope;
  return std::nullopt;
}

const ScopeInfo &scopeInfo(CalcScope S) {
  return calcScopes()[static_cast<size_t>(
      S)]; // The table is in the enum's order.
}

Result<uint64_t> parseCalcBytes(std::string_view What, std::string_view Text) {
  std::string W(What), T(Text);
  if (!Text.empty() && Text[0] == '-')
    return error(W + " " + T + " is negative");
  size_t End = 0;
  while (End < Text.size() &&
         ((Text[End] >= '0' && Text[End] <= '9') || Text[End] == '.'))
    ++End;
  std::string_view Number = Text.substr(0, End), Unit = Text.substr(End);
  while (!Unit.empty() && Unit.front() == ' ')
    Unit.remove_prefix(1);
  std::string U;
  for (char C : Unit)
    U += static_cast<char>(C >= 'A' && C <= 'Z' ? C - 'A' + 'a' : C);
  uint64_t Scale = 1;
  if (U == "" || U == "b")
    Scale = 1;
  else if (U == "k" || U == "kb" || U == "kib")
    Scale = 1024;
  else if (U == "m" || U == "mb" || U == "mib")
    Scale = 1024 * 1024;
  else if (U == "g" || U == "gb" || U == "gib")
    Scale = 1024ull * 1024 * 1024;
  else
    return error(W + " '" + T +
                 "': expected bytes, or a number with KiB, MiB or GiB");
  if (Scale == 1 || Number.find('.') == std::string_view::npos) {
    auto N = parseCalcNumber(What, Number.empty() ? Text : Number);
    if (!N)
      return N;
    if (auto V = checkedMul(*N, Scale))
      return *V;
    return error(W + " " + T + " does not fit in 64 bits");
  }
  // A fraction of a unit (1.5MiB): whole bytes only.
  const size_t Dot = Number.find('.');
  auto Whole = parseCalcNumber(
      What, Number.substr(0, Dot).empty() ? "0" : Number.substr(0, Dot));
  std::string_view Frac = Number.substr(Dot + 1);
  if (!Whole || Frac.empty() || Frac.size() > 6 ||
      Frac.find_first_not_of("0123456789") != std::string_view::npos)
    return error(W + " '" + T + "' is not a number of bytes");
  uint64_t Den = 1, Num = 0;
  for (char C : Frac) {
    Den *= 10;
    Num = Num * 10 + static_cast<uint64_t>(C - '0');
  }
  auto Base = checkedMul(*Whole, Scale);
  auto Part = checkedMul(Num, Scale);
  if (!Base || !Part)
    return error(W + " " + T + " does not fit in 64 bits");
  if (*Part % Den)
    return error(W + " " + T + " is not a whole number of bytes");
  if (auto V = checkedAdd(*Base, *Part / Den))
    return *V;
  return error(W + " " + T + " does not fit in 64 bits");
}

Result<uint64_t> parseCalcNumber(std::string_view What, std::string_view Text) {
  std::string W(What), T(Text);
  auto Digits = [](std::string_view S) {
    return !S.empty() && std::all_of(S.begin(), S.end(), [](char C) {
      return C >= '0' && C <= '9';
    });
  };
  if (Text.size() > 1 && Text[0] == '-' && Digits(Text.substr(1)))
    return error(W + " " + T + " is negative");
  if (!Digits(Text))
    return error(W + " '" + T + "' is not a whole number");
  uint64_t V = 0;
  for (char C : Text) {
    auto Next = checkedMul(V, 10);
    if (Next)
      Next = checkedAdd(*Next, static_cast<uint64_t>(C - '0'));
    if (!Next)
      return error(W + " " + T + " does not fit in 64 bits");
    V = *Next;
  }
  return V;
}

namespace {

/// The request's own errors beyond its tile: threads, a capacity and an
/// architecture both, registers without threads.
Result<bool> checkSpread(const CalcRequest &Req) {
  if (Req.Threads && *Req.Threads == 0)
    return error("--threads 0: a tile is spread over at least 1 thread");
  if (!Req.Arch.empty() && Req.Capacity)
    return error("give --arch or --capacity, not both");
  if (Req.Scope == CalcScope::Registers && !Req.Threads)
    return error("--scope registers needs --threads: the number of threads the "
                 "tile is spread "
                 "over");
  return true;
}

/// Spreads \p R over the request's threads and checks it against its
/// capacity or architecture.
Result<bool> spreadAndFit(CalcResult &R, const CalcRequest &Req,
                          const CapacityDatabase *Db) {
  if (R.Threads) {
    R.BytesPerThread = ceilDiv(R.TotalBytes, *R.Threads);
    R.RegistersPerThread = ceilDiv(*R.BytesPerThread, 4);
  }

  if (Req.Capacity) {
    CalcFit F;
    F.Field = "--capacity";
    F.Basis = "given";
    F.Capacity = *Req.Capacity;
    F.Used = Req.Scope == CalcScope::Registers ? *R.RegistersPerThread * 4
                                               : R.TotalBytes;
    finishFit(F);
    R.Fit = std::move(F);
  } else if (!Req.Arch.empty()) {
    const ArchCapacity *C = Db ? Db->lookup(Req.Arch) : nullptr;
    if (!C)
      return error("unknown architecture '" + Req.Arch +
                   "'; the capacity database knows " +
                   (Db ? join(archNames(*Db), ", ")
                       : std::string("none (none was loaded)")));
    auto F = archFit(R, Req.Arch, *C, *Db);
    if (!F)
      return ErrorMessage{F.error()};
    finishFit(*F);
    R.Fit = std::move(*F);
  }
  if (R.Scope == CalcScope::Registers)
    R.Notes.push_back("registers hold the arrays alone: the compiler needs "
                      "registers of its own "
                      "besides");
  return true;
}

} // namespace

Result<CalcResult> calculate(const CalcRequest &Req,
                             const CapacityDatabase *Db) {
  if (Req.DType.empty())
    return error("no element type: give --dtype (see --list-dtypes)");
  const ElementType *T = findElementType(Req.DType);
  if (!T)
    return unknownType(Req.DType);
  if (Req.Tile.empty())
    return error(
        "no tile: give its dimensions with --tile (e.g. --tile 128 256)");
  for (size_t I = 0; I < Req.Tile.size(); ++I)
    if (Req.Tile[I] == 0)
      return error("tile dimension " + std::to_string(I + 1) +
                   " is 0: every dimension must be at "
                   "least 1");
  if (Req.Versions == 0)
    return error(
        "--versions 0: a tile has at least 1 version (2 when double-buffered)");
  if (auto Spread = checkSpread(Req); !Spread)
    return ErrorMessage{Spread.error()};

  CalcResult R;
  R.Tile = Req.Tile;
  R.Type = T;
  R.Versions = Req.Versions;
  R.Scope = Req.Scope;
  R.Threads = Req.Threads;

  std::optional<uint64_t> Elements = 1;
  for (uint64_t D : Req.Tile)
    if (Elements)
      Elements = checkedMul(*Elements, D);
  if (!Elements)
    return error("tile " + tileText(Req.Tile) +
                 ": the element count overflows 64 bits");
  R.Elements = *Elements;
  // ceil(elements x bits / 8) as (elements / 8) x bits + ceil((elements % 8) x
  // bits / 8): the bit count itself may pass 2^64 when the byte count does not.
  std::optional<uint64_t> Bytes = checkedMul(R.Elements / 8, T->Bits);
  if (Bytes)
    Bytes = checkedAdd(*Bytes, ceilDiv(R.Elements % 8 * T->Bits, 8));
  if (!Bytes)
    return error("tile " + tileText(Req.Tile) + " of " + T->Name + ": " +
                 std::to_string(R.Elements) +
                 " elements overflow 64 bits in bytes");
  R.BytesPerCopy = *Bytes;
  auto Total = checkedMul(R.BytesPerCopy, Req.Versions);
  if (!Total)
    return error("tile " + tileText(Req.Tile) + " of " + T->Name + " x " +
                 std::to_string(Req.Versions) +
                 " versions: the total overflows 64 bits");
  R.TotalBytes = *Total;
  if (auto Fitted = spreadAndFit(R, Req, Db); !Fitted)
    return ErrorMessage{Fitted.error()};
  return R;
}

Result<CalcResult> calculateSum(const std::vector<CalcRequest> &Operands,
                                const CalcRequest &Common,
                                const CapacityDatabase *Db) {
  if (Operands.size() == 1) {
    CalcRequest One = Common;
    One.Tile = Operands.front().Tile;
    One.DType = Operands.front().DType;
    One.Versions = Operands.front().Versions;
    return calculate(One, Db);
  }
  if (auto Spread = checkSpread(Common); !Spread)
    return ErrorMessage{Spread.error()};
  CalcResult Sum;
  Sum.Versions = 1;
  Sum.Scope = Common.Scope;
  Sum.Threads = Common.Threads;
  for (size_t I = 0; I < Operands.size(); ++I) {
    CalcRequest Alone = Operands[I];
    Alone.Threads.reset();
    Alone.Scope = CalcScope::Shared; // its size alone: no capacity, no threads
    Alone.Arch.clear();
    Alone.Capacity.reset();
    auto R = calculate(Alone, nullptr);
    if (!R)
      return error("operand " + std::to_string(I + 1) + ": " + R.error());
    auto Elements = checkedAdd(Sum.Elements, R->Elements);
    auto Total = checkedAdd(Sum.TotalBytes, R->TotalBytes);
    if (!Elements || !Total)
      return error("the operands' total overflows 64 bits");
    Sum.Elements = *Elements;
    Sum.TotalBytes = *Total;
    R->Notes.clear();
    Sum.Operands.push_back(std::move(*R));
  }
  Sum.BytesPerCopy = Sum.TotalBytes;
  if (auto Fitted = spreadAndFit(Sum, Common, Db); !Fitted)
    return ErrorMessage{Fitted.error()};
  return Sum;
}

Result<CalcOccupancy> calculateOccupancy(uint64_t Threads, uint64_t Registers,
                                         uint64_t SharedBytes,
                                         const std::string &Arch,
                                         const CapacityDatabase &Db) {
  const ArchCapacity *C = Db.lookup(Arch);
  if (!C)
    return error("unknown architecture '" + Arch +
                 "'; the capacity database knows " + join(archNames(Db), ", "));
  if (Threads == 0)
    return error("--threads 0: a block has at least 1 thread");
  OccupancyInput In;
  In.BlockThreads = Threads;
  In.Registers = Registers;
  In.DynamicBytes = SharedBytes;
  // A block that needs more than the default limit is opted in to what it
  // needs, as a kernel must be (cudaFuncSetAttribute).
  if (C->BlockDefaultMax && SharedBytes > *C->BlockDefaultMax)
    In.OptInBytes = SharedBytes;
  auto O = computeOccupancy(*C, In);
  if (!O)
    return error(Arch + ": " + O.error());
  CalcOccupancy R;
  R.Arch = Arch;
  R.Resident = *O;
  R.WarpsPerSm = O->BlocksPerSm * O->WarpsPerBlock;
  R.MaxWarpsPerSm = C->WarpsPerSm.value_or(0);
  return R;
}

} // namespace tilefit
