//===- CalcReporter.cpp - The calculator's results, for people and tools --===//
#include "tilefit/reporters/CalcReporter.h"

#include "tilefit/model/ByteUnits.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <sstream>

namespace tilefit {
namespace {

using json = nlohmann::ordered_json;

json optionalNumber(const std::optional<uint64_t> &V) {
  return V ? json(*V) : json(nullptr);
}

std::string join(const std::vector<std::string> &Parts, const char *Sep) {
  std::string Out;
  for (const std::string &P : Parts)
    Out += (Out.empty() ? "" : Sep) + P;
  return Out;
}

/// `fits (3 KiB left)`, `does not fit (29696 bytes over)`.
std::string verdictText(const CalcFit &F) {
  bool InRegisters = F.RegisterLimit.has_value();
  auto Amount = [&](uint64_t Bytes) {
    return InRegisters ? countPhrase(Bytes / 4, "register", "registers")
                       : countPhrase(Bytes, "byte", "bytes");
  };
  if (F.Fits)
    return "fits (" + Amount(F.Headroom) + " left)";
  if (F.Over)
    return "does not fit (" + Amount(F.Over) + " over)";
  return "does not fit:"; // The problems follow.
}

/// What the capacity is, e.g. `232448 bytes (227 KiB) per block with opt-in`.
std::string capacityText(const CalcFit &F) {
  if (F.RegisterLimit)
    return countPhrase(*F.RegisterLimit, "register", "registers") + " (" +
           std::to_string(F.Capacity) + " bytes) per thread";
  return bytesPhrase(F.Capacity) +
         (F.Arch.empty() ? std::string(", given") : " " + F.Basis);
}

std::string typeText(const ElementType &T) {
  if (T.packed())
    return std::to_string(T.Bits) + " bits, packed " + T.packing();
  if (T.ValueBits != T.Bits)
    return std::to_string(T.ValueBits) + "-bit values, " + T.packing();
  return std::to_string(T.Bits) + " bits";
}

/// Left column of the text report: at least two spaces after the label.
std::string label(const std::string &L) {
  return L + std::string(L.size() + 2 < 14 ? 14 - L.size() : 2, ' ');
}

/// `128 x 256 float32 (32 bits), 2 versions`.
std::string operandText(const CalcResult &R) {
  return tileText(R.Tile) + " " + R.Type->Name + " (" + typeText(*R.Type) +
         "), " + countPhrase(R.Versions, "version", "versions");
}

/// One operand's or one tile's keys in JSON.
void putOperand(json &J, const CalcResult &R) {
  J["tile"] = R.Tile;
  J["dtype"] = R.Type->Name;
  J["dtype_bits"] = R.Type->Bits;
  J["value_bits"] = R.Type->ValueBits;
  J["packed"] = R.Type->packed();
  J["versions"] = R.Versions;
  J["elements"] = R.Elements;
  J["bytes_per_copy"] = R.BytesPerCopy;
  J["total_bytes"] = R.TotalBytes;
}

} // namespace

void renderCalcText(const CalcResult &R, std::ostream &OS) {
  if (R.Operands.empty()) {
    OS << "tile " << operandText(R) << "\n";
    OS << label("elements") << R.Elements << "\n";
    OS << label("per copy") << bytesPhrase(R.BytesPerCopy) << "\n";
  } else {
    for (size_t I = 0; I < R.Operands.size(); ++I)
      OS << label("operand " + std::to_string(I + 1)) << "tile "
         << operandText(R.Operands[I]) << ": "
         << bytesPhrase(R.Operands[I].TotalBytes) << "\n";
  }
  OS << label("total") << bytesPhrase(R.TotalBytes) << "\n";
  if (R.Threads)
    OS << label("per thread") << countPhrase(*R.BytesPerThread, "byte", "bytes")
       << " over " << countPhrase(*R.Threads, "thread", "threads") << " = "
       << countPhrase(*R.RegistersPerThread, "32-bit register",
                      "32-bit registers")
       << "\n";
  if (R.Fit) {
    const CalcFit &F = *R.Fit;
    std::string L =
        F.Arch.empty() ? "capacity" : F.Arch + " " + scopeInfo(R.Scope).Name;
    OS << label(L) << capacityText(F) << ": " << verdictText(F) << "\n";
    for (const std::string &P : F.Problems)
      OS << label("") << P << "\n";
    if (F.TmemColumns)
      OS << label("columns") << *F.TmemColumns << " of "
         << *F.TmemColumnsAvailable << "\n";
  }
  for (const std::string &N : R.Notes)
    OS << "note: " << N << "\n";
}

void renderCalcText(const std::vector<CalcResult> &Rs, std::ostream &OS) {
  if (Rs.size() == 1 || Rs.empty() || !Rs.front().Fit) {
    for (const CalcResult &R : Rs)
      renderCalcText(R, OS);
    return;
  }
  // The tile once, then a column per architecture.
  CalcResult First = Rs.front();
  First.Fit.reset();
  First.Notes.clear();
  renderCalcText(First, OS);
  std::vector<std::vector<std::string>> Rows = {
      {""}, {scopeInfo(First.Scope).Name}, {"verdict"}};
  bool Columns = false;
  for (const CalcResult &R : Rs) {
    const CalcFit &F = *R.Fit;
    Rows[0].push_back(F.Arch);
    Rows[1].push_back(F.RegisterLimit ? capacityText(F)
                                      : bytesPhrase(F.Capacity));
    std::string V = verdictText(F);
    for (const std::string &P : F.Problems)
      V += " " + P;
    Rows[2].push_back(V);
    Columns |= F.TmemColumns.has_value();
  }
  // What each capacity is (`per block with opt-in`), once when they agree.
  std::vector<std::string> Basis = {"of it"};
  for (const CalcResult &R : Rs)
    Basis.push_back(R.Fit->RegisterLimit ? "" : R.Fit->Basis);
  if (std::any_of(Basis.begin() + 1, Basis.end(),
                  [](const std::string &B) { return !B.empty(); }))
    Rows.insert(Rows.begin() + 2, Basis);
  if (Columns) {
    Rows.push_back({"columns"});
    for (const CalcResult &R : Rs)
      Rows.back().push_back(
          R.Fit->TmemColumns ? std::to_string(*R.Fit->TmemColumns) + " of " +
                                   std::to_string(*R.Fit->TmemColumnsAvailable)
                             : "");
  }
  std::vector<size_t> Width(Rs.size() + 1, 0);
  for (const auto &Row : Rows)
    for (size_t C = 1; C < Row.size(); ++C)
      Width[C] = std::max(Width[C], Row[C].size());
  for (const auto &Row : Rows) {
    std::string Line = label(Row[0]);
    for (size_t C = 1; C < Row.size(); ++C) {
      std::string Cell = Row[C];
      if (C + 1 < Row.size())
        Cell.resize(Width[C] + 2, ' ');
      Line += Cell;
    }
    Line.erase(Line.find_last_not_of(' ') + 1);
    OS << Line << "\n";
  }
  std::vector<std::string> Notes;
  for (const CalcResult &R : Rs)
    for (const std::string &N : R.Notes)
      if (std::find(Notes.begin(), Notes.end(), N) == Notes.end())
        Notes.push_back(N);
  for (const std::string &N : Notes)
    OS << "note: " << N << "\n";
}

void renderCalcJson(const std::vector<CalcResult> &Rs, std::ostream &OS) {
  if (Rs.size() == 1) {
    renderCalcJson(Rs.front(), OS);
    return;
  }
  // The first architecture's document, with every architecture's capacity
  // beside it.
  std::ostringstream First;
  renderCalcJson(Rs.front(), First);
  json J = json::parse(First.str());
  json All = json::array();
  bool Fits = true;
  for (const CalcResult &R : Rs) {
    std::ostringstream One;
    renderCalcJson(R, One);
    All.push_back(json::parse(One.str())["capacity"]);
    Fits = Fits && R.Fit && R.Fit->Fits;
  }
  J["capacities"] = All;
  J["fits"] = Fits;
  OS << J.dump(2) << "\n";
}

void renderCalcJson(const CalcResult &R, std::ostream &OS) {
  json J;
  J["schema"] = "tilefit-calc/1";
  if (R.Operands.empty()) {
    putOperand(J, R);
  } else {
    // Several operands: each with its own keys, and the sum's.
    for (const char *Key :
         {"tile", "dtype", "dtype_bits", "value_bits", "packed", "versions"})
      J[Key] = nullptr;
    J["elements"] = R.Elements;
    J["bytes_per_copy"] = nullptr;
    J["total_bytes"] = R.TotalBytes;
    json Ops = json::array();
    for (const CalcResult &Op : R.Operands) {
      json O;
      putOperand(O, Op);
      Ops.push_back(std::move(O));
    }
    J["operands"] = std::move(Ops);
  }
  J["per_copy_human"] =
      R.Operands.empty() ? json(humanBytes(R.BytesPerCopy)) : json(nullptr);
  J["total_human"] = humanBytes(R.TotalBytes);
  J["total_kib"] = static_cast<double>(R.TotalBytes) / 1024;
  J["total_mib"] = static_cast<double>(R.TotalBytes) / (1024 * 1024);
  J["scope"] = scopeInfo(R.Scope).Name;
  J["threads"] = optionalNumber(R.Threads);
  J["bytes_per_thread"] = optionalNumber(R.BytesPerThread);
  J["registers_per_thread"] = optionalNumber(R.RegistersPerThread);
  J["fits"] = R.Fit ? json(R.Fit->Fits) : json(nullptr);
  if (R.Fit) {
    const CalcFit &F = *R.Fit;
    json C;
    C["arch"] = F.Arch.empty() ? json(nullptr) : json(F.Arch);
    C["field"] = F.Field;
    C["basis"] = F.Basis;
    C["bytes"] = F.Capacity;
    C["human"] = humanBytes(F.Capacity);
    C["used_bytes"] = F.Used;
    C["fits"] = F.Fits;
    C["headroom_bytes"] = F.Headroom;
    C["over_bytes"] = F.Over;
    C["problems"] = F.Problems;
    if (F.RegisterLimit) {
      C["registers_per_thread_limit"] = *F.RegisterLimit;
      C["registers_per_block"] = optionalNumber(F.RegistersPerBlock);
      C["registers_per_block_limit"] = optionalNumber(F.RegisterLimitPerBlock);
    }
    if (F.TmemColumns) {
      C["tmem_columns"] = *F.TmemColumns;
      C["tmem_columns_available"] = *F.TmemColumnsAvailable;
    }
    J["capacity"] = C;
  } else {
    J["capacity"] = nullptr;
  }
  J["notes"] = R.Notes;
  OS << J.dump(2) << "\n";
}

namespace {

/// A line of the arithmetic: `  name = formula = value`.
using LineFn = std::function<void(std::string Name, std::string Formula,
                                  const std::string &Value)>;

/// A tile's elements, bits and bytes.
void sizeArithmetic(const CalcResult &R, const LineFn &Line) {
  const ElementType &T = *R.Type;
  std::string Bits = std::to_string(T.Bits);
  Line("elements", tileText(R.Tile), std::to_string(R.Elements));
  if (auto AllBits = checkedMul(R.Elements, T.Bits)) {
    Line("bits", std::to_string(R.Elements) + " x " + Bits + " bits",
         std::to_string(*AllBits) + " bits");
    Line("per copy", "ceil(" + std::to_string(*AllBits) + " / 8)",
         bytesPhrase(R.BytesPerCopy));
  } else {
    Line("per copy",
         "ceil(" + std::to_string(R.Elements) + " x " + Bits + " / 8)",
         bytesPhrase(R.BytesPerCopy));
  }
  Line("total",
       std::to_string(R.BytesPerCopy) + " x " +
           countPhrase(R.Versions, "version", "versions"),
       bytesPhrase(R.TotalBytes));
}

/// Per thread, then the capacity and the verdict.
void spreadAndFitArithmetic(const CalcResult &R, const LineFn &Line) {
  if (R.Threads) {
    Line("per thread",
         "ceil(" + std::to_string(R.TotalBytes) + " / " +
             std::to_string(*R.Threads) + ")",
         bytesPhrase(*R.BytesPerThread));
    Line("registers", "ceil(" + std::to_string(*R.BytesPerThread) + " / 4)",
         std::to_string(*R.RegistersPerThread) + " per thread");
  }
  if (!R.Fit)
    return;
  const CalcFit &F = *R.Fit;
  std::string Source = F.Arch.empty() ? "--capacity" : F.Arch + " " + F.Field;
  if (F.RegisterLimit) {
    Source = F.Arch + " " + std::to_string(*F.RegisterLimit) + " registers x 4";
    Line("used", std::to_string(*R.RegistersPerThread) + " registers x 4",
         bytesPhrase(F.Used));
  } else if (F.TmemColumns) {
    Source = F.Arch + " " + std::to_string(*F.TmemColumnsAvailable) +
             " columns x " + std::to_string(TmemLanes) + " x " +
             std::to_string(TmemCellBytes);
  }
  Line("capacity", Source, bytesPhrase(F.Capacity));
  bool Within = F.Used <= F.Capacity;
  Line("verdict",
       std::to_string(F.Used) + (Within ? " <= " : " > ") +
           std::to_string(F.Capacity),
       Within
           ? (F.Fits ? "fits, " + countPhrase(F.Headroom, "byte", "bytes") +
                           " left"
                     : "does not fit")
           : "does not fit, " + countPhrase(F.Over, "byte", "bytes") + " over");
}

} // namespace

void renderCalcArithmetic(const CalcResult &R, std::ostream &OS) {
  const LineFn Line = [&](std::string Name, std::string Formula,
                          const std::string &Value) {
    Name.resize(std::max<size_t>(Name.size(), 10), ' ');
    Formula.resize(std::max<size_t>(Formula.size(), 35), ' ');
    OS << "  " << Name << " = " << Formula << " = " << Value << "\n";
  };
  if (!R.Operands.empty()) {
    // Each operand alone, then their sum.
    std::string Sum;
    for (size_t I = 0; I < R.Operands.size(); ++I) {
      OS << "  operand " << I + 1 << ":\n";
      sizeArithmetic(R.Operands[I], Line);
      Sum += (I ? " + " : "") + std::to_string(R.Operands[I].TotalBytes);
    }
    Line("total", Sum, bytesPhrase(R.TotalBytes));
  } else {
    sizeArithmetic(R, Line);
  }
  spreadAndFitArithmetic(R, Line);
}

namespace {

/// `50%` of the architecture's warps (one decimal where it is not whole).
std::string percentOf(uint64_t Part, uint64_t Whole) {
  if (Whole == 0)
    return "?";
  char Buf[32];
  const double P =
      100.0 * static_cast<double>(Part) / static_cast<double>(Whole);
  std::snprintf(Buf, sizeof(Buf), (Part * 100) % Whole ? "%.1f%%" : "%.0f%%",
                P);
  return Buf;
}

} // namespace

void renderOccupancyText(const std::vector<CalcOccupancy> &Rs, uint64_t Threads,
                         uint64_t Registers, uint64_t SharedBytes,
                         std::ostream &OS) {
  OS << label("block") << countPhrase(Threads, "thread", "threads") << ", "
     << (Registers
             ? countPhrase(Registers, "register", "registers") + " per thread"
             : std::string("registers not given (they do not limit)"))
     << ", " << bytesPhrase(SharedBytes) << " of shared memory\n";
  for (const CalcOccupancy &R : Rs) {
    const Occupancy &O = R.Resident;
    OS << label(R.Arch) << countPhrase(O.BlocksPerSm, "block", "blocks")
       << " per SM, " << R.WarpsPerSm << " of " << R.MaxWarpsPerSm << " warps ("
       << percentOf(R.WarpsPerSm, R.MaxWarpsPerSm) << "), limited by "
       << limitNames(O.LimitedBy) << "\n";
    if (O.BlocksPerSm == 0 && O.SmemPerSm == 0) {
      OS << label("") << "shared memory " << bytesPhrase(O.SmemPerBlock)
         << " per block with the driver's reserve: more than a block can "
            "have there\n";
      continue;
    }
    OS << label("") << "shared memory " << bytesPhrase(O.SmemPerBlock)
       << " per block with the driver's reserve, of "
       << bytesPhrase(O.SmemPerSm) << " configured per SM\n";
  }
}

void renderOccupancyJson(const std::vector<CalcOccupancy> &Rs, uint64_t Threads,
                         uint64_t Registers, uint64_t SharedBytes,
                         std::ostream &OS) {
  json J;
  J["schema"] = "tilefit-calc-occupancy/1";
  J["threads"] = Threads;
  J["registers"] = Registers ? json(Registers) : json(nullptr);
  J["shared_bytes"] = SharedBytes;
  json All = json::array();
  for (const CalcOccupancy &R : Rs) {
    const Occupancy &O = R.Resident;
    All.push_back(
        {{"arch", R.Arch},
         {"blocks_per_sm", O.BlocksPerSm},
         {"warps_per_sm", R.WarpsPerSm},
         {"max_warps_per_sm", R.MaxWarpsPerSm},
         {"occupancy", R.MaxWarpsPerSm
                           ? static_cast<double>(R.WarpsPerSm) /
                                 static_cast<double>(R.MaxWarpsPerSm)
                           : 0.0},
         {"limited_by", limitNames(O.LimitedBy)},
         {"blocks_by_shared_memory", O.BlocksBySharedMemory == UINT64_MAX
                                         ? json(nullptr)
                                         : json(O.BlocksBySharedMemory)},
         {"smem_per_block", O.SmemPerBlock},
         {"smem_per_sm", O.SmemPerSm}});
  }
  J["architectures"] = std::move(All);
  OS << J.dump(2) << "\n";
}

void renderElementTypes(bool Json, std::ostream &OS) {
  if (Json) {
    json A = json::array();
    for (const ElementType &T : elementTypes())
      A.push_back({{"name", T.Name},
                   {"cuda", T.CudaNames},
                   {"bits", T.Bits},
                   {"value_bits", T.ValueBits},
                   {"packed", T.packed()},
                   {"packing", T.packing()},
                   {"aliases", T.Aliases},
                   {"note", T.Note}});
    OS << json{{"dtypes", A}}.dump(2) << "\n";
    return;
  }
  auto Pad = [](std::string S, size_t W) {
    S.resize(std::max(S.size(), W), ' ');
    return S;
  };
  OS << Pad("dtype", 24) << Pad("CUDA", 30) << Pad("bits", 6)
     << Pad("packing", 16) << "note\n";
  for (const ElementType &T : elementTypes()) {
    std::string Cuda = T.CudaNames.empty() ? "-" : join(T.CudaNames, ", ");
    std::string Note = T.Note;
    if (!T.Aliases.empty())
      Note += (Note.empty() ? "" : "; ") + std::string("also ") +
              join(T.Aliases, ", ");
    std::string Line = Pad(T.Name, 24) + Pad(Cuda, 30) +
                       Pad(std::to_string(T.Bits), 6) + Pad(T.packing(), 16) +
                       Note;
    Line.erase(Line.find_last_not_of(' ') + 1);
    OS << Line << "\n";
  }
}

void renderScopes(bool Json, std::ostream &OS) {
  if (Json) {
    json A = json::array();
    for (const ScopeInfo &S : calcScopes())
      A.push_back(
          {{"name", S.Name}, {"holds", S.Holds}, {"capacity", S.Capacity}});
    OS << json{{"scopes", A}}.dump(2) << "\n";
    return;
  }
  for (const ScopeInfo &S : calcScopes())
    OS << label(S.Name) << "holds: " << S.Holds << "\n"
       << label("") << "capacity: " << S.Capacity << "\n";
}

} // namespace tilefit
