//===- Config.cpp ---------------------------------------------------------===//
#include "tilefit/frontend/Config.h"
#include "tilefit/frontend/CompileCommand.h"

#include "tilefit/model/AnalysisOptions.h"
#include "tilefit/model/Arch.h"
#include "tilefit/model/Checks.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLParser.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <sstream>

namespace tilefit {
namespace frontend {
namespace {

namespace yaml = llvm::yaml;

/// Reads one configuration; the first problem is kept with its position.
class Reader {
public:
  Reader(llvm::StringRef Text, const std::string &Origin,
         const std::string &BaseDir)
      : Origin(Origin), BaseDir(BaseDir) {
    SM.setDiagHandler(
        [](const llvm::SMDiagnostic &D, void *Ctx) {
          auto *R = static_cast<Reader *>(Ctx);
          if (R->Error.empty())
            R->Error = R->Origin + ":" + std::to_string(D.getLineNo()) + ":" +
                       std::to_string(D.getColumnNo() + 1) + ": " +
                       D.getMessage().str();
        },
        this);
    Input = Text.str();
  }

  llvm::Expected<Config> read() {
    Config C;
    C.Origin = Origin;
    if (!commaRunsAreShort())
      return fail();
    yaml::Stream S(Input, SM);
    auto Doc = S.begin();
    if (Doc == S.end() || !Error.empty())
      return fail();
    yaml::Node *Root = Doc->getRoot();
    if (!Error.empty())
      return fail();
    if (!Root || llvm::isa<yaml::NullNode>(Root))
      return C; // an empty file configures nothing
    auto *Map = llvm::dyn_cast<yaml::MappingNode>(Root);
    if (!Map) {
      problem(Root, "expected a mapping of keys to values");
      return fail();
    }
    for (yaml::KeyValueNode &KV : *Map) {
      if (!Error.empty())
        break;
      std::string Key = scalar(KV.getKey(), "a key");
      yaml::Node *V = KV.getValue();
      if (!Error.empty() || !V)
        break;
      if (Key == "Checks")
        C.Checks = checkList(V, Key, /*MustEnable=*/true);
      else if (Key == "WarningsAsErrors")
        C.WarningsAsErrors = checkList(V, Key, /*MustEnable=*/false);
      else if (Key == "HeaderFilterRegex")
        C.HeaderFilterRegex = scalar(V, "a regular expression");
      else if (Key == "Budget")
        C.Budget = fraction(V);
      else if (Key == "AllowParseErrors")
        C.AllowParseErrors = boolean(V);
      else if (Key == "CapacityDatabase") {
        std::string P = scalar(V, "a file name");
        llvm::SmallString<256> Abs(P);
        if (!llvm::sys::path::is_absolute(Abs)) {
          Abs = BaseDir;
          llvm::sys::path::append(Abs, P);
        }
        C.CapacityDatabase = std::string(Abs);
      } else if (Key == "Architectures") {
        std::vector<std::string> Archs;
        forEachItem(V, "a list of architectures", [&](yaml::Node *N) {
          std::string A = scalar(N, "an architecture name");
          auto P = parseArch(A);
          if (Error.empty() && (!P || A.rfind("sm_", 0) != 0))
            problem(N, "'" + A +
                           "' is not an architecture name (expected sm_NN, "
                           "sm_NNa or sm_NNf)");
          Archs.push_back(A);
        });
        C.Architectures = std::move(Archs);
      } else if (Key == "PrecompileIncludes") {
        std::vector<std::string> Globs;
        forEachItem(V, "a list of #include name globs", [&](yaml::Node *N) {
          std::string G = scalar(N, "a glob over #include names");
          if (Error.empty()) {
            if (auto P = llvm::GlobPattern::create(G); !P)
              problem(N, "'" + G + "' is not a glob: " +
                             llvm::toString(P.takeError()));
          }
          Globs.push_back(G);
        });
        C.PrecompileIncludes = std::move(Globs);
      } else if (Key == "KernelBudgets") {
        std::vector<KernelBudget> Budgets;
        forEachItem(V, "a list of {Kernel, Bytes or Fraction}",
                    [&](yaml::Node *N) { Budgets.push_back(kernelBudget(N)); });
        C.KernelBudgets = std::move(Budgets);
      } else if (Key == "BlockShapes") {
        std::vector<KernelBlockShape> Shapes;
        forEachItem(V, "a list of {Kernel, Shape}",
                    [&](yaml::Node *N) { Shapes.push_back(blockShape(N)); });
        C.BlockShapes = std::move(Shapes);
      } else if (Key == "DynamicSharedMemory") {
        std::vector<KernelDynamicSize> Sizes;
        forEachItem(V, "a list of {Kernel, Bytes}",
                    [&](yaml::Node *N) { Sizes.push_back(dynamicSize(N)); });
        C.DynamicSharedMemory = std::move(Sizes);
      } else if (Error.empty()) {
        problem(
            KV.getKey(),
            "unknown key '" + Key +
                "' (expected Checks, WarningsAsErrors, Budget, Architectures, "
                "CapacityDatabase, HeaderFilterRegex, AllowParseErrors, "
                "KernelBudgets, DynamicSharedMemory, BlockShapes or "
                "PrecompileIncludes)");
      }
    }
    if (!Error.empty())
      return fail();
    // Consume the rest of the stream so that a syntax error after the mapping
    // is seen.
    Doc->skip();
    if (++Doc != S.end() || !Error.empty()) {
      problem(nullptr, "expected one document");
      return fail();
    }
    return C;
  }

private:
  /// LLVM's YAML parser recurses once per empty entry of a flow collection
  /// (`[,,,]`): a long enough run of them overflows the stack (found by
  /// fuzz_config). No configuration needs more than a few commas in a row.
  bool commaRunsAreShort() {
    constexpr size_t MaxRun = 1000;
    size_t Run = 0, Line = 1, Column = 0, RunLine = 0, RunColumn = 0;
    for (char Ch : Input) {
      ++Column;
      if (Ch == ',') {
        if (Run++ == 0) {
          RunLine = Line;
          RunColumn = Column;
        }
        if (Run > MaxRun) {
          Error = Origin + ":" + std::to_string(RunLine) + ":" +
                  std::to_string(RunColumn) + ": more than " +
                  std::to_string(MaxRun) + " commas in a row";
          return false;
        }
      } else if (Ch == '\n') {
        ++Line;
        Column = 0;
      } else if (Ch != ' ' && Ch != '\t' && Ch != '\r') {
        Run = 0;
      }
    }
    return true;
  }

  llvm::Error fail() {
    return llvm::createStringError(std::errc::invalid_argument, "%s",
                                   Error.c_str());
  }

  void problem(yaml::Node *N, const std::string &Msg) {
    if (!Error.empty())
      return;
    if (N) {
      auto LC = SM.getLineAndColumn(N->getSourceRange().Start);
      Error = Origin + ":" + std::to_string(LC.first) + ":" +
              std::to_string(LC.second) + ": " + Msg;
    } else {
      Error = Origin + ": " + Msg;
    }
  }

  /// A list of check globs; one that matches no check is a problem (a typo
  /// would turn a gate off without a word).
  std::string checkList(yaml::Node *N, const std::string &Key,
                        bool MustEnable) {
    std::string Globs = scalar(N, "a string of check globs");
    if (Error.empty())
      if (auto Problem = checkListProblem(Globs, Key, MustEnable))
        problem(N, *Problem);
    return Globs;
  }

  std::string scalar(yaml::Node *N, const char *What) {
    auto *S = llvm::dyn_cast_or_null<yaml::ScalarNode>(N);
    if (!S) {
      problem(N, std::string("expected ") + What);
      return "";
    }
    llvm::SmallString<64> Storage;
    return S->getValue(Storage).str();
  }

  bool boolean(yaml::Node *N) {
    std::string Text = scalar(N, "true or false");
    if (!Error.empty())
      return false;
    if (Text == "true" || Text == "True" || Text == "TRUE")
      return true;
    if (Text != "false" && Text != "False" && Text != "FALSE")
      problem(N, "expected true or false, got '" + Text + "'");
    return false;
  }

  double fraction(yaml::Node *N) {
    std::string Text = scalar(N, "a fraction");
    if (!Error.empty())
      return 0;
    std::optional<double> V = parseBudgetFraction(Text);
    if (!V)
      problem(N,
              std::string("expected ") + BudgetRange + ", got '" + Text + "'");
    return V.value_or(0);
  }

  /// A byte count: a whole number.
  uint64_t byteCount(yaml::Node *N) {
    std::string Text = scalar(N, "a byte count");
    unsigned long long V = 0;
    if (Error.empty() && llvm::StringRef(Text).getAsInteger(10, V))
      problem(N, "expected a byte count, got '" + Text + "'");
    return V;
  }

  /// Calls Fn on each item of a sequence while the parser stands on it: LLVM's
  /// YAML nodes stream, so an item cannot be read after the iterator has moved
  /// past it.
  template <typename Fn>
  void forEachItem(yaml::Node *N, const char *What, Fn &&Visit) {
    auto *Seq = llvm::dyn_cast_or_null<yaml::SequenceNode>(N);
    if (!Seq) {
      problem(N, std::string("expected ") + What);
      return;
    }
    for (yaml::Node &Item : *Seq)
      Visit(&Item);
  }

  /// `{Kernel: 'softmax_*', Bytes: 4096}`.
  KernelDynamicSize dynamicSize(yaml::Node *N) {
    KernelDynamicSize D;
    auto *Map = llvm::dyn_cast_or_null<yaml::MappingNode>(N);
    if (!Map) {
      problem(N, "expected {Kernel: glob, Bytes: n}");
      return D;
    }
    bool HaveBytes = false;
    for (yaml::KeyValueNode &KV : *Map) {
      std::string Key = scalar(KV.getKey(), "a key");
      if (!Error.empty())
        return D;
      if (Key == "Kernel") {
        D.Kernel = scalar(KV.getValue(), "a glob over kernel names");
      } else if (Key == "Bytes") {
        D.Bytes = byteCount(KV.getValue());
        HaveBytes = true;
      } else {
        problem(KV.getKey(),
                "unknown key '" + Key + "' (expected Kernel or Bytes)");
      }
    }
    if (Error.empty() && (D.Kernel.empty() || !HaveBytes))
      problem(N, "a dynamic shared memory size needs a Kernel glob and Bytes");
    return D;
  }

  /// `{Kernel: 'reduce*', Shape: [256, 1, 1]}` (one to three extents).
  KernelBlockShape blockShape(yaml::Node *N) {
    KernelBlockShape B;
    auto *Map = llvm::dyn_cast_or_null<yaml::MappingNode>(N);
    if (!Map) {
      problem(N, "expected {Kernel: glob, Shape: [x, y, z]}");
      return B;
    }
    bool HaveShape = false;
    for (yaml::KeyValueNode &KV : *Map) {
      std::string Key = scalar(KV.getKey(), "a key");
      if (!Error.empty())
        return B;
      if (Key == "Kernel") {
        B.Kernel = scalar(KV.getValue(), "a glob over kernel names");
      } else if (Key == "Shape") {
        std::vector<uint64_t> Extents;
        forEachItem(
            KV.getValue(), "a list of one to three block extents",
            [&](yaml::Node *E) {
              std::string S = scalar(E, "a block extent");
              uint64_t V = 0;
              if (Error.empty() && (llvm::StringRef(S).getAsInteger(10, V) ||
                                    V == 0 || V > 1024))
                problem(E, "'" + S + "' is not a block extent (1 to 1024)");
              Extents.push_back(V);
            });
        if (Error.empty() && (Extents.empty() || Extents.size() > 3))
          problem(KV.getValue(), "a block shape has one to three extents");
        if (Error.empty()) {
          B.X = Extents[0];
          B.Y = Extents.size() > 1 ? Extents[1] : 1;
          B.Z = Extents.size() > 2 ? Extents[2] : 1;
          HaveShape = true;
        }
      } else {
        problem(KV.getKey(),
                "unknown key '" + Key + "' (expected Kernel or Shape)");
      }
    }
    if (Error.empty() && (B.Kernel.empty() || !HaveShape))
      problem(N, "a block shape needs a Kernel glob and a Shape");
    return B;
  }

  KernelBudget kernelBudget(yaml::Node *N) {
    KernelBudget B;
    auto *Map = llvm::dyn_cast_or_null<yaml::MappingNode>(N);
    if (!Map) {
      problem(
          N,
          "expected {Kernel: glob, Bytes: n} or {Kernel: glob, Fraction: f}");
      return B;
    }
    for (yaml::KeyValueNode &KV : *Map) {
      std::string Key = scalar(KV.getKey(), "a key");
      if (!Error.empty())
        return B;
      if (Key == "Kernel") {
        B.Kernel = scalar(KV.getValue(), "a glob over kernel names");
      } else if (Key == "Bytes") {
        B.Bytes = byteCount(KV.getValue());
      } else if (Key == "Fraction") {
        B.Fraction = fraction(KV.getValue());
      } else {
        problem(KV.getKey(), "unknown key '" + Key +
                                 "' (expected Kernel, Bytes or Fraction)");
      }
    }
    if (Error.empty() && (B.Kernel.empty() || (!B.Bytes == !B.Fraction)))
      problem(
          N,
          "a kernel budget needs a Kernel glob and one of Bytes or Fraction");
    return B;
  }

  std::string Origin, BaseDir, Input, Error;
  llvm::SourceMgr SM;
};

/// A YAML scalar that reads back as \p S. Single quotes keep every character
/// but line breaks (YAML folds them into spaces) and other control characters,
/// and LLVM's parser rejects bytes that are not UTF-8 there; a string holding
/// any of those is written double-quoted, control characters escaped, other
/// bytes as they are.
std::string quote(const std::string &S) {
  bool Plain = true;
  for (unsigned char C : S)
    Plain &= C >= 0x20 && C < 0x7f;
  if (Plain) {
    std::string Out = "'";
    for (char C : S)
      Out += C == '\'' ? std::string("''") : std::string(1, C);
    return Out + "'";
  }
  std::string Out = "\"";
  for (unsigned char C : S) {
    if (C == '"' || C == '\\') {
      Out += '\\';
      Out += static_cast<char>(C);
    } else if (C < 0x20 || C == 0x7f) {
      static const char Hex[] = "0123456789abcdef";
      Out += "\\x";
      Out += Hex[C >> 4];
      Out += Hex[C & 15];
    } else {
      Out += static_cast<char>(C);
    }
  }
  return Out + "\"";
}

/// An item of a flow sequence: `sm_90` as it is, anything else (`a, b`, `#`,
/// ``) quoted.
std::string flowItem(const std::string &S) {
  bool Plain = !S.empty();
  for (char C : S)
    Plain &= llvm::isAlnum(C) || C == '_';
  return Plain ? S : quote(S);
}

/// A flow sequence of \p Items (none: `[]`).
std::string flowList(const std::optional<std::vector<std::string>> &Items) {
  std::string Out = "[";
  if (Items)
    for (size_t I = 0; I < Items->size(); ++I)
      Out += (I ? ", " : "") + flowItem((*Items)[I]);
  return Out + "]";
}

/// The shortest decimal form of \p V that reads back as \p V (0.9, not
/// 0.90000000000000002).
std::string number(double V) {
  for (int Digits = 6;; ++Digits) {
    std::ostringstream OS;
    OS.precision(Digits);
    OS << V;
    if (Digits >= 17 || std::strtod(OS.str().c_str(), nullptr) == V)
      return OS.str();
  }
}

/// \p Mine takes \p Over's value when it has one.
template <typename T>
void overlayField(std::optional<T> &Mine, const std::optional<T> &Over) {
  if (Over)
    Mine = Over;
}

} // namespace

void Config::overlay(const Config &Over) {
  overlayField(Checks, Over.Checks);
  overlayField(WarningsAsErrors, Over.WarningsAsErrors);
  overlayField(Budget, Over.Budget);
  overlayField(Architectures, Over.Architectures);
  overlayField(CapacityDatabase, Over.CapacityDatabase);
  overlayField(HeaderFilterRegex, Over.HeaderFilterRegex);
  overlayField(AllowParseErrors, Over.AllowParseErrors);
  overlayField(KernelBudgets, Over.KernelBudgets);
  overlayField(DynamicSharedMemory, Over.DynamicSharedMemory);
  overlayField(BlockShapes, Over.BlockShapes);
  overlayField(PrecompileIncludes, Over.PrecompileIncludes);
  if (!Over.Origin.empty())
    Origin = Origin.empty() ? Over.Origin : Origin + ", " + Over.Origin;
}

std::string Config::toYaml() const {
  std::ostringstream OS;
  OS << "---\n";
  if (!Origin.empty())
    OS << "# from " << Origin << "\n";
  OS << "Checks: " << quote(Checks.value_or("*")) << "\n";
  OS << "WarningsAsErrors: " << quote(WarningsAsErrors.value_or("")) << "\n";
  OS << "Budget: " << number(Budget.value_or(0.9)) << "\n";
  OS << "Architectures: " << flowList(Architectures) << "\n";
  if (CapacityDatabase)
    OS << "CapacityDatabase: " << quote(*CapacityDatabase) << "\n";
  OS << "HeaderFilterRegex: " << quote(HeaderFilterRegex.value_or("")) << "\n";
  OS << "AllowParseErrors: "
     << (AllowParseErrors.value_or(false) ? "true" : "false") << "\n";
  OS << "KernelBudgets:";
  if (!KernelBudgets || KernelBudgets->empty())
    OS << " []";
  OS << "\n";
  if (KernelBudgets)
    for (const KernelBudget &B : *KernelBudgets) {
      OS << "  - Kernel: " << quote(B.Kernel) << "\n";
      if (B.Bytes)
        OS << "    Bytes: " << *B.Bytes << "\n";
      if (B.Fraction)
        OS << "    Fraction: " << number(*B.Fraction) << "\n";
    }
  OS << "DynamicSharedMemory:";
  if (!DynamicSharedMemory || DynamicSharedMemory->empty())
    OS << " []";
  OS << "\n";
  if (DynamicSharedMemory)
    for (const KernelDynamicSize &D : *DynamicSharedMemory)
      OS << "  - Kernel: " << quote(D.Kernel) << "\n    Bytes: " << D.Bytes
         << "\n";
  OS << "BlockShapes:";
  if (!BlockShapes || BlockShapes->empty())
    OS << " []";
  OS << "\n";
  if (BlockShapes)
    for (const KernelBlockShape &B : *BlockShapes)
      OS << "  - Kernel: " << quote(B.Kernel) << "\n    Shape: [" << B.X << ", "
         << B.Y << ", " << B.Z << "]\n";
  OS << "PrecompileIncludes: " << flowList(PrecompileIncludes) << "\n";
  OS << "...\n";
  return OS.str();
}

llvm::Expected<Config> parseConfig(llvm::StringRef Text,
                                   const std::string &Origin,
                                   const std::string &BaseDir) {
  return Reader(Text, Origin, BaseDir).read();
}

std::string findConfigFile(llvm::StringRef Dir) {
  return findFileAbove(Dir, {".tilefit.yaml", ".tilefit.json"});
}

llvm::Expected<Config> loadConfigFile(const std::string &Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Buf)
    return llvm::createStringError(
        Buf.getError(), "%s: cannot read the configuration: %s", Path.c_str(),
        Buf.getError().message().c_str());
  return parseConfig((*Buf)->getBuffer(), Path,
                     std::string(llvm::sys::path::parent_path(Path)));
}

} // namespace frontend
} // namespace tilefit
