//===- Fixture.cpp --------------------------------------------------------===//
#include "Fixture.h"
#include "BankOracle.h"

#include "TestSupport.h"

#include "tilefit/model/Checks.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <regex>
#include <sstream>

namespace tilefit {
namespace test {

std::vector<std::string> listFixtures() {
  std::vector<std::string> Out;
  std::error_code EC;
  for (llvm::sys::fs::recursive_directory_iterator It(fixturesDir(), EC), End;
       It != End && !EC; It.increment(EC))
    if (llvm::StringRef(It->path()).ends_with(".cu"))
      Out.push_back(It->path());
  std::sort(Out.begin(), Out.end());
  return Out;
}

std::vector<std::string> tilefitFlags(const Fixture &F) {
  std::vector<std::string> Out = F.Flags;
  Out.insert(Out.end(), F.TilefitFlags.begin(), F.TilefitFlags.end());
  return Out;
}

std::vector<std::string> nvccFlags(const Fixture &F) {
  std::vector<std::string> Out = F.Flags;
  Out.insert(Out.end(), F.NvccFlags.begin(), F.NvccFlags.end());
  return Out;
}

Fixture parseFixture(const std::string &Path) {
  Fixture F;
  F.Path = Path;
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  if (!Buf) {
    F.Errors.push_back("cannot read " + Path);
    return F;
  }
  static const std::regex Header(
      R"(//\s*(ARCHS|FLAGS|TILEFIT-FLAGS|NVCC-FLAGS|CAPACITY-DB|BUDGET|PTXAS|STATUS):\s*(.*?)\s*$)");
  static const std::regex Directive(
      R"((?:(sm_\w+)-)?(expected-smem|expected-alloc|expected-unreferenced|expected-launch|expected-occupancy|expected-registers|expected-constant|expected-tmem|expected-bank|expected-error|expected-warning|expected-remark|expected-note|ptxas-unchecked)(@[+-]\d+)?\s*(.*?)(?=\s+(?:sm_\w+-)?(?:expected-|ptxas-unchecked)|$))");
  static const std::regex Braced(R"(^\s*\{\{(.*?)\}\})");

  llvm::SmallVector<llvm::StringRef, 0> Lines;
  (*Buf)->getBuffer().split(Lines, '\n');
  for (unsigned I = 0; I < Lines.size(); ++I) {
    std::string Line = Lines[I].str();
    unsigned LineNo = I + 1;
    std::smatch M;
    if (std::regex_search(Line, M, Header)) {
      std::string Key = M[1], Value = M[2];
      llvm::SmallVector<llvm::StringRef, 8> Words;
      llvm::StringRef(Value).split(Words, ' ', -1, false);
      if (Key == "ARCHS") {
        F.Archs.clear();
        for (auto W : Words)
          F.Archs.push_back(W.str());
      } else if (Key == "FLAGS" || Key == "TILEFIT-FLAGS" ||
                 Key == "NVCC-FLAGS") {
        auto &Into = Key == "FLAGS"        ? F.Flags
                     : Key == "NVCC-FLAGS" ? F.NvccFlags
                                           : F.TilefitFlags;
        for (auto W : Words)
          Into.push_back(W.str());
      } else if (Key == "CAPACITY-DB") {
        F.CapacityDb =
            std::string(llvm::sys::path::parent_path(Path)) + "/" + Value;
      } else if (Key == "BUDGET") {
        F.Budget = std::stod(Value);
      } else if (Key == "STATUS") {
        if (Value != "ok" && Value != "partial" && Value != "error")
          F.Errors.push_back(Path + ":" + std::to_string(LineNo) +
                             ": STATUS: expected ok, partial or error");
        F.Status = Value;
      } else if (Key == "PTXAS") {
        if (Value.rfind("skip", 0) == 0)
          F.PtxasSkip = Value.size() > 4 ? Value.substr(5) : "skipped";
      }
      continue;
    }
    size_t Comment = Line.find("//");
    if (Comment == std::string::npos)
      continue;
    std::string Rest = Line.substr(Comment + 2);
    // Several directives may share one comment.
    std::sregex_iterator It(Rest.begin(), Rest.end(), Directive), End;
    std::vector<std::smatch> Matches(It, End);
    for (size_t N = 0; N < Matches.size(); ++N) {
      const std::smatch &D = Matches[N];
      Expectation E;
      E.Arch = D[1];
      std::string Kind = D[2];
      E.Line = LineNo;
      if (D[3].matched)
        E.Line = LineNo + std::stoi(std::string(D[3]).substr(1));
      E.Directive = D[0];
      // The directive's own text runs to the next directive.
      std::string Args = D[4];
      auto TakeBraced = [&](std::string &Out) {
        std::smatch B;
        if (!std::regex_search(Args, B, Braced))
          return false;
        Out = B[1];
        Args = B.suffix();
        return true;
      };
      auto Bad = [&](const std::string &Why) {
        F.Errors.push_back(Path + ":" + std::to_string(LineNo) + ": " + Why +
                           ": " + E.Directive);
      };
      if (Kind == "expected-smem") {
        E.K = Expectation::Kind::Smem;
        if (!TakeBraced(E.Kernel)) {
          Bad("expected {{kernel}}");
          continue;
        }
        std::string V = llvm::StringRef(Args).trim().split(' ').first.str();
        if (V == "unknown") {
          Args = llvm::StringRef(Args).trim().drop_front(V.size()).str();
          TakeBraced(E.Text); // the reason, optional
        } else {
          if (V.empty() || !std::all_of(V.begin(), V.end(), ::isdigit)) {
            Bad("expected a byte count or 'unknown'");
            continue;
          }
          E.Bytes = std::stoull(V);
        }
      } else if (Kind == "expected-alloc" || Kind == "expected-unreferenced" ||
                 Kind == "expected-launch" || Kind == "expected-occupancy" ||
                 Kind == "expected-registers" || Kind == "expected-constant" ||
                 Kind == "expected-tmem") {
        E.K = Kind == "expected-alloc" ? Expectation::Kind::Alloc
              : Kind == "expected-unreferenced"
                  ? Expectation::Kind::Unreferenced
              : Kind == "expected-launch"    ? Expectation::Kind::Launch
              : Kind == "expected-registers" ? Expectation::Kind::Registers
              : Kind == "expected-constant"  ? Expectation::Kind::Constant
              : Kind == "expected-tmem"      ? Expectation::Kind::Tmem
                                             : Expectation::Kind::Occupancy;
        bool NeedsVar = E.K == Expectation::Kind::Alloc ||
                        E.K == Expectation::Kind::Unreferenced;
        bool NeedsKernel = E.K != Expectation::Kind::Constant;
        if ((NeedsKernel && !TakeBraced(E.Kernel)) ||
            (NeedsVar && !TakeBraced(E.Var))) {
          Bad(NeedsVar ? "expected {{kernel}} {{variable}}"
                       : "expected {{kernel}}");
          continue;
        }
        std::istringstream SS(Args);
        std::string KV;
        while (SS >> KV) {
          auto Eq = KV.find('=');
          if (Eq == std::string::npos)
            break;
          E.Fields[KV.substr(0, Eq)] = KV.substr(Eq + 1);
        }
        if (E.Fields.empty() && E.K != Expectation::Kind::Alloc &&
            E.K != Expectation::Kind::Unreferenced &&
            E.K != Expectation::Kind::Launch &&
            E.K != Expectation::Kind::Occupancy) {
          Bad("expected key=value figures");
          continue;
        }
      } else if (Kind == "expected-bank") {
        E.K = Expectation::Kind::Bank;
        std::string Access;
        if (!TakeBraced(Access) || (Access != "load" && Access != "store")) {
          Bad("expected {{load}} or {{store}} and a degree");
          continue;
        }
        E.Var = Access;
        E.Text = llvm::StringRef(Args).trim().str();
        if (E.Text != "conflict-free" && E.Text != "not-analysed" &&
            !llvm::StringRef(E.Text).ends_with("-way")) {
          Bad("expected conflict-free, N-way or not-analysed");
          continue;
        }
      } else if (Kind == "ptxas-unchecked") {
        std::string K;
        if (!TakeBraced(K)) {
          Bad("expected {{kernel}}");
          continue;
        }
        F.PtxasUnchecked[K] = llvm::StringRef(Args).trim().str();
        continue;
      } else {
        E.K = Kind == "expected-error"     ? Expectation::Kind::Error
              : Kind == "expected-warning" ? Expectation::Kind::Warning
              : Kind == "expected-remark"  ? Expectation::Kind::Remark
                                           : Expectation::Kind::Note;
        if (!TakeBraced(E.Text)) {
          Bad("expected {{text}}");
          continue;
        }
      }
      F.Expectations.push_back(std::move(E));
    }
  }
  return F;
}

namespace {

bool appliesTo(const Expectation &E, const std::string &Arch) {
  return E.Arch.empty() || E.Arch == Arch;
}

std::string shapeText(const std::vector<uint64_t> &Shape) {
  std::string S;
  for (uint64_t X : Shape)
    S += (S.empty() ? "" : "x") + std::to_string(X);
  return S.empty() ? "scalar" : S;
}

std::string fieldValue(const AllocationReport &A, const std::string &Key) {
  if (Key == "offset")
    return A.Offset ? std::to_string(*A.Offset) : "unknown";
  if (Key == "bytes")
    return A.Var.Bytes ? std::to_string(*A.Var.Bytes) : "unknown";
  if (Key == "align")
    return std::to_string(A.Var.Align);
  if (Key == "shape")
    return shapeText(A.Var.Shape);
  if (Key == "element_bytes")
    return std::to_string(A.Var.ElementBytes);
  if (Key == "element_type")
    return A.Var.ElementType;
  if (Key == "module_scope")
    return A.AtModuleScope ? "true" : "false";
  return "<no field '" + Key + "'>";
}

std::string underscored(std::string S) {
  for (char &C : S)
    if (C == ' ')
      C = '_';
  return S;
}

std::string figure(const std::optional<uint64_t> &V) {
  return V ? std::to_string(*V) : "unknown";
}

/// The value of \p Key in a kernel's register-tile report, as a directive
/// writes it.
std::string registersField(const RegisterTileReport &G,
                           const std::string &Key) {
  if (Key == "bytes")
    return figure(G.BytesPerThread);
  if (Key == "registers")
    return figure(G.RegistersPerThread);
  if (Key == "block_bytes")
    return figure(G.BytesPerBlock);
  if (Key == "block_threads")
    return figure(G.BlockThreads);
  if (Key == "limit")
    return figure(G.Limit);
  if (Key == "basis")
    return underscored(G.LimitBasis +
                       (G.LimitNote.empty() ? "" : "; " + G.LimitNote));
  if (Key == "arrays")
    return std::to_string(G.Arrays.size());
  if (Key == "reason")
    return underscored(G.UnknownReason);
  return "<no field '" + Key + "'>";
}

std::string tmemField(const std::optional<TensorMemoryReport> &T,
                      const std::string &Key) {
  if (!T)
    return Key == "columns" ? "none" : "<no tensor memory>";
  if (Key == "columns")
    return figure(T->Columns);
  if (Key == "capacity")
    return figure(T->Capacity);
  if (Key == "allocations")
    return std::to_string(T->Allocations.size());
  if (Key == "reason")
    return underscored(T->UnknownReason);
  return "<no field '" + Key + "'>";
}

std::string constantField(const ConstantMemoryReport &C,
                          const std::string &Key) {
  if (Key == "bytes")
    return figure(C.Bytes);
  if (Key == "limit")
    return figure(C.Limit);
  if (Key == "variables")
    return std::to_string(C.Variables.size());
  if (Key == "reason")
    return underscored(C.UnknownReason);
  return "<no field '" + Key + "'>";
}

/// Substring keys: the rest must be equal.
bool fieldMatches(const std::string &Key, const std::string &Got,
                  const std::string &Want) {
  return Key == "basis" || Key == "reason" ? Got.find(Want) != std::string::npos
                                           : Got == Want;
}

struct Seen {
  const Diagnostic *D;
  const Note *N; // null for the diagnostic itself
  std::string Arch;
  bool Matched = false;
};

} // namespace

std::vector<std::string> verify(const Fixture &F, const Report &R) {
  std::vector<std::string> Problems;
  auto Where = [&](const Expectation &E) {
    return F.Path + ":" + std::to_string(E.Line) + ": " + E.Directive;
  };
  std::string Self = F.Path;

  // Kernel figures: every expectation met, every kernel expected.
  for (const std::string &Arch : F.Archs) {
    for (const KernelReport &K : R.Kernels) {
      if (K.Arch != Arch)
        continue;
      const Expectation *Exp = nullptr;
      for (const Expectation &E : F.Expectations)
        if (E.K == Expectation::Kind::Smem && E.Kernel == K.Name &&
            appliesTo(E, Arch) && (!Exp || !E.Arch.empty()))
          Exp = &E;
      std::string Got =
          K.StaticBytes ? std::to_string(*K.StaticBytes) : "unknown";
      if (!Exp) {
        Problems.push_back(Arch + ": unexpected kernel '" + K.Name + "' with " +
                           Got + " bytes (add expected-smem {{" + K.Name +
                           "}} " + Got + ")");
        continue;
      }
      std::string Want = Exp->Bytes ? std::to_string(*Exp->Bytes) : "unknown";
      if (Got != Want)
        Problems.push_back(Arch + ": " + Where(*Exp) + ": kernel '" + K.Name +
                           "' has " + Got + " bytes, expected " + Want +
                           (K.StaticBytes ? "" : " (" + K.UnknownReason + ")"));
      else if (!K.StaticBytes &&
               K.UnknownReason.find(Exp->Text) == std::string::npos)
        Problems.push_back(Arch + ": " + Where(*Exp) + ": kernel '" + K.Name +
                           "' is unknown because " + K.UnknownReason +
                           ", expected a reason with '" + Exp->Text + "'");
      // A file that expects launches expects every launch it makes (one through
      // a helper is reported at the call that names its kernel, not inside the
      // helper).
      if (std::any_of(F.Expectations.begin(), F.Expectations.end(),
                      [](const Expectation &E) {
                        return E.K == Expectation::Kind::Launch;
                      }))
        for (const LaunchReport &L : K.Launches)
          if (L.Loc.File == Self &&
              std::none_of(F.Expectations.begin(), F.Expectations.end(),
                           [&](const Expectation &E) {
                             return E.K == Expectation::Kind::Launch &&
                                    E.Line == L.Loc.Line &&
                                    E.Kernel == K.Name && appliesTo(E, Arch);
                           }))
            Problems.push_back(Arch + ": unexpected launch of '" + K.Name +
                               "' at line " + std::to_string(L.Loc.Line));
      if (F.Status == "partial" && K.StaticBytes && !K.UnitHasErrors)
        Problems.push_back(
            Arch + ": kernel '" + K.Name +
            "' of a unit with errors is not marked as untouched by them");
    }
    for (const UnitReport &U : R.Units) {
      if (U.Arch != Arch)
        continue;
      const std::string Status = U.Ok ? "ok" : U.Partial ? "partial" : "error";
      if (Status != F.Status)
        Problems.push_back(Arch + ": the unit's status is " + Status +
                           ", expected " + F.Status + " (STATUS:)");
    }
    for (const Expectation &E : F.Expectations) {
      if (!appliesTo(E, Arch))
        continue;
      const KernelReport *K = nullptr;
      if (E.K == Expectation::Kind::Smem || E.K == Expectation::Kind::Alloc ||
          E.K == Expectation::Kind::Unreferenced ||
          E.K == Expectation::Kind::Launch ||
          E.K == Expectation::Kind::Occupancy ||
          E.K == Expectation::Kind::Registers ||
          E.K == Expectation::Kind::Tmem) {
        for (const KernelReport &KR : R.Kernels)
          if (KR.Arch == Arch && KR.Name == E.Kernel)
            K = &KR;
        if (!K) {
          Problems.push_back(Arch + ": " + Where(E) + ": no kernel named '" +
                             E.Kernel + "'");
          continue;
        }
      }
      if (E.K == Expectation::Kind::Alloc) {
        const AllocationReport *A = nullptr;
        for (const AllocationReport &AR : K->Allocations)
          if (AR.Var.Name == E.Var || AR.Var.QualifiedName == E.Var)
            A = &AR;
        if (!A) {
          Problems.push_back(Arch + ": " + Where(E) + ": kernel '" + E.Kernel +
                             "' allocates no '" + E.Var + "'");
          continue;
        }
        for (const auto &[Key, Want] : E.Fields) {
          std::string Got = fieldValue(*A, Key);
          if (Got != Want)
            Problems.push_back(Arch + ": " + Where(E) + ": " + Key + " is " +
                               Got + ", expected " + Want);
        }
      } else if (E.K == Expectation::Kind::Launch) {
        const LaunchReport *L = nullptr;
        for (const LaunchReport &LR : K->Launches)
          if (LR.Loc.File == Self && LR.Loc.Line == E.Line)
            L = &LR;
        if (!L) {
          Problems.push_back(Arch + ": " + Where(E) + ": no launch of '" +
                             E.Kernel + "' on this line");
          continue;
        }
        for (const auto &[Key, Want] : E.Fields) {
          std::string Got =
              Key == "bytes"
                  ? (L->DynamicBytes ? std::to_string(*L->DynamicBytes)
                                     : "unknown")
              : Key == "block_threads"
                  ? (L->BlockThreads ? std::to_string(*L->BlockThreads)
                                     : "unknown")
              : Key == "reason" ? underscored(L->UnknownReason)
              : Key == "stated"
                  ? (L->StatedBy.empty() ? std::string("no") : L->StatedBy)
                  : "<no field '" + Key + "'>";
          bool Ok = Key == "reason" ? Got.find(Want) != std::string::npos
                                    : Got == Want;
          if (!Ok)
            Problems.push_back(Arch + ": " + Where(E) + ": " + Key + " is " +
                               Got + ", expected " + Want);
        }
      } else if (E.K == Expectation::Kind::Occupancy) {
        const OccupancyReport &O = K->Occupancy;
        for (const auto &[Key, Want] : E.Fields) {
          std::string Got =
              Key == "blocks"
                  ? (O.BlocksPerSm ? std::to_string(*O.BlocksPerSm) : "unknown")
              : Key == "limited_by" ? underscored(O.LimitedBy)
              : Key == "threads"
                  ? (O.BlockThreads ? std::to_string(*O.BlockThreads)
                                    : "unknown")
              : Key == "opt_in"
                  ? (K->OptInBytes ? std::to_string(*K->OptInBytes) : "none")
                  : "<no field '" + Key + "'>";
          if (Got != Want)
            Problems.push_back(Arch + ": " + Where(E) + ": " + Key + " is " +
                               Got + ", expected " + Want);
        }
      } else if (E.K == Expectation::Kind::Registers ||
                 E.K == Expectation::Kind::Tmem) {
        for (const auto &[Key, Want] : E.Fields) {
          std::string Got = E.K == Expectation::Kind::Registers
                                ? registersField(K->Registers, Key)
                                : tmemField(K->TensorMemory, Key);
          if (!fieldMatches(Key, Got, Want))
            Problems.push_back(Arch + ": " + Where(E) + ": " + Key + " is " +
                               Got + ", expected " + Want);
        }
      } else if (E.K == Expectation::Kind::Constant) {
        for (const UnitReport &U : R.Units) {
          if (U.Arch != Arch)
            continue;
          if (!U.ConstantMemory) {
            Problems.push_back(Arch + ": " + Where(E) +
                               ": the unit has no constant-memory report");
            continue;
          }
          for (const auto &[Key, Want] : E.Fields) {
            std::string Got = constantField(*U.ConstantMemory, Key);
            if (!fieldMatches(Key, Got, Want))
              Problems.push_back(Arch + ": " + Where(E) + ": " + Key + " is " +
                                 Got + ", expected " + Want);
          }
        }
      } else if (E.K == Expectation::Kind::Unreferenced) {
        bool Found = false;
        for (const SharedVar &V : K->Unreferenced)
          Found |= V.Name == E.Var || V.QualifiedName == E.Var;
        if (!Found)
          Problems.push_back(Arch + ": " + Where(E) + ": '" + E.Var +
                             "' is not reported as unreferenced");
      }
    }
  }

  // Bank conflicts: every access of a file that expects any has its degree
  // on its line, and every analysed access's degree is the oracle's
  // (BankOracle.h), whatever the file expects.
  const bool BanksStrict = std::any_of(
      F.Expectations.begin(), F.Expectations.end(),
      [](const Expectation &E) { return E.K == Expectation::Kind::Bank; });
  std::set<const Expectation *> BankMatched;
  for (const KernelReport &K : R.Kernels)
    for (const BankAccessReport &B : K.BankAccesses) {
      const std::string Kind = B.Access.Store ? "store" : "load";
      const std::string At = K.Arch + ": kernel '" + K.Name + "': " + Kind +
                             " `" + B.Access.Text + "` at line " +
                             std::to_string(B.Access.Loc.Line);
      if (B.Verdict.Analysed) {
        BankOracleResult O = bankOracle(B);
        if (!O.Ok)
          Problems.push_back(At + ": the oracle cannot evaluate it (" + O.Why +
                             ") but tilefit did");
        else if (O.Degree != B.Verdict.Degree)
          Problems.push_back(
              At + ": tilefit says " + std::to_string(B.Verdict.Degree) +
              " wavefronts, the oracle " + std::to_string(O.Degree));
      }
      if (!BanksStrict || B.Access.Loc.File != Self)
        continue;
      const std::string Got = !B.Verdict.Analysed ? "not-analysed"
                              : B.Verdict.Degree <= 1
                                  ? "conflict-free"
                                  : std::to_string(B.Verdict.Degree) + "-way";
      const Expectation *Exp = nullptr;
      for (const Expectation &E : F.Expectations)
        if (E.K == Expectation::Kind::Bank && E.Line == B.Access.Loc.Line &&
            E.Var == Kind && appliesTo(E, K.Arch) && (!Exp || !E.Arch.empty()))
          Exp = &E;
      if (!Exp)
        Problems.push_back(At + " is " + Got + " (add expected-bank {{" + Kind +
                           "}} " + Got + ")");
      else if (Exp->Text != Got)
        Problems.push_back(
            At + " is " + Got + ", expected " + Exp->Text +
            (B.Verdict.Analysed ? "" : " (" + describe(B.Verdict.Why) + ")"));
      else
        BankMatched.insert(Exp);
    }
  for (const Expectation &E : F.Expectations)
    if (E.K == Expectation::Kind::Bank && !BankMatched.count(&E))
      Problems.push_back(Where(E) + ": no such access");

  // The other scopes: every kernel with per-thread arrays (when the file
  // expects any), every kernel with Tensor Memory requests and every unit with
  // __constant__ data needs its directive.
  auto Expected = [&](Expectation::Kind Kind, const std::string &Arch,
                      const std::string &Kernel) {
    return std::any_of(F.Expectations.begin(), F.Expectations.end(),
                       [&](const Expectation &E) {
                         return E.K == Kind && appliesTo(E, Arch) &&
                                E.Kernel == Kernel;
                       });
  };
  const bool RegistersStrict = std::any_of(
      F.Expectations.begin(), F.Expectations.end(),
      [](const Expectation &E) { return E.K == Expectation::Kind::Registers; });
  for (const KernelReport &K : R.Kernels) {
    if (RegistersStrict && !K.Registers.Arrays.empty() &&
        !Expected(Expectation::Kind::Registers, K.Arch, K.Name))
      Problems.push_back(
          K.Arch + ": kernel '" + K.Name + "' keeps " +
          registersField(K.Registers, "bytes") +
          " bytes per thread in local arrays (add expected-registers {{" +
          K.Name + "}} bytes=" + registersField(K.Registers, "bytes") + ")");
    if (K.TensorMemory && !K.TensorMemory->Allocations.empty() &&
        !Expected(Expectation::Kind::Tmem, K.Arch, K.Name))
      Problems.push_back(
          K.Arch + ": kernel '" + K.Name + "' allocates " +
          tmemField(K.TensorMemory, "columns") +
          " columns of Tensor Memory (add expected-tmem {{" + K.Name +
          "}} columns=" + tmemField(K.TensorMemory, "columns") + ")");
  }
  for (const UnitReport &U : R.Units)
    if (U.ConstantMemory && !U.ConstantMemory->Variables.empty() &&
        !Expected(Expectation::Kind::Constant, U.Arch, ""))
      Problems.push_back(
          U.Arch + ": the unit has " +
          constantField(*U.ConstantMemory, "bytes") +
          " bytes of __constant__ data (add expected-constant bytes=" +
          constantField(*U.ConstantMemory, "bytes") + ")");

  // Diagnostics: unit messages and findings, with their notes.
  // Notes and remarks are checked strictly when the file expects any of them.
  auto Expects = [&](Expectation::Kind K) {
    return std::any_of(F.Expectations.begin(), F.Expectations.end(),
                       [&](const Expectation &E) { return E.K == K; });
  };
  const bool NotesStrict = Expects(Expectation::Kind::Note);
  const bool RemarksStrict = Expects(Expectation::Kind::Remark);
  std::vector<Seen> All;
  auto Add = [&](const Diagnostic &D, const std::string &Arch) {
    All.push_back({&D, nullptr, Arch});
    for (const Note &N : D.Notes)
      All.push_back({&D, &N, Arch});
  };
  for (const UnitReport &U : R.Units)
    for (const Diagnostic &D : U.Messages)
      Add(D, U.Arch);
  // Bank-conflict warnings are expected where the file expects bank degrees
  // (tests/fixtures/banks); the other fixtures' accesses are still checked
  // against the oracle above.
  for (const Diagnostic &D : R.Diagnostics)
    if (BanksStrict || D.Check != "tilefit-bank-conflict")
      Add(D, D.Arch);

  for (const Expectation &E : F.Expectations) {
    if (E.K != Expectation::Kind::Error && E.K != Expectation::Kind::Warning &&
        E.K != Expectation::Kind::Remark && E.K != Expectation::Kind::Note)
      continue;
    for (const std::string &Arch : F.Archs) {
      if (!appliesTo(E, Arch))
        continue;
      bool Found = false;
      for (Seen &S : All) {
        if (S.Arch != Arch)
          continue;
        const SourcePos &P = S.N ? S.N->Loc : S.D->Loc;
        std::string Text =
            S.N ? S.N->Message : S.D->Message + " [" + S.D->Check + "]";
        Severity Level = S.N ? Severity::Note : S.D->Level;
        Severity Want = E.K == Expectation::Kind::Error     ? Severity::Error
                        : E.K == Expectation::Kind::Warning ? Severity::Warning
                        : E.K == Expectation::Kind::Remark  ? Severity::Remark
                                                            : Severity::Note;
        if (Level == Want && P.File == Self && P.Line == E.Line &&
            Text.find(E.Text) != std::string::npos) {
          S.Matched = true;
          Found = true;
        }
      }
      if (!Found)
        Problems.push_back(Arch + ": " + Where(E) + ": no such diagnostic");
    }
  }
  for (const Seen &S : All) {
    // A remark that is not checked takes its notes with it.
    if (S.Matched || (S.N && !NotesStrict) ||
        (S.D->Level == Severity::Remark && !RemarksStrict))
      continue;
    const SourcePos &P = S.N ? S.N->Loc : S.D->Loc;
    std::string Text =
        S.N ? S.N->Message : S.D->Message + " [" + S.D->Check + "]";
    Problems.push_back(S.Arch + ": unexpected " +
                       std::string(S.N ? "note" : severityName(S.D->Level)) +
                       " at " + P.File + ":" + std::to_string(P.Line) + ": " +
                       Text);
  }
  return Problems;
}

} // namespace test
} // namespace tilefit
