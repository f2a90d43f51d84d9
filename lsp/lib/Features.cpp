//===- Features.cpp - Diagnostics, hover, inlay hints and code lenses -----===//
#include "tilefit/lsp/Features.h"

#include "tilefit/model/ByteUnits.h"
#include "tilefit/model/Messages.h"
#include "tilefit/reporters/KernelNameWidth.h"
#include "tilefit/reporters/Summary.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace tilefit {
namespace lsp {
namespace {

using json = nlohmann::json;

bool isIdentChar(char C) {
  return std::isalnum(static_cast<unsigned char>(C)) || C == '_';
}

/// The range of the token at Clang's 1-based \p Line and byte \p Column: an
/// identifier, or one character.
json tokenRange(const Document &Doc, unsigned Line, unsigned Column,
                PositionEncoding E) {
  std::string Text = Doc.line(Line ? Line - 1 : 0);
  size_t Start = Column ? Column - 1 : 0, End = Start;
  while (End < Text.size() && isIdentChar(Text[End]))
    ++End;
  if (End == Start && End < Text.size())
    ++End;
  Position S = Doc.positionOf(Line, Column, E);
  Position Fin{S.Line, charactersOf(Text, End, E)};
  return rangeJson(S, Fin);
}

int lspSeverity(Severity S) {
  switch (S) {
  case Severity::Error:
    return 1;
  case Severity::Warning:
    return 2;
  case Severity::Remark:
    return 3;
  case Severity::Note:
    return 4;
  }
  return 3;
}

/// The line (1-based) of the #include of \p Header in \p Doc, else 1.
unsigned includeLine(const Document &Doc, const std::string &Header) {
  std::string Name = fileNameOf(Header);
  for (unsigned L = 0; L < Doc.lineCount(); ++L) {
    std::string Text = Doc.line(L);
    size_t Hash = Text.find_first_not_of(" \t");
    if (Hash == std::string::npos || Text[Hash] != '#' ||
        Text.find("include") == std::string::npos)
      continue;
    size_t At = Text.find(Name);
    if (At != std::string::npos && At > 0 &&
        (Text[At - 1] == '"' || Text[At - 1] == '<' || Text[At - 1] == '/'))
      return L + 1;
  }
  return 1;
}

std::string where(const SourcePos &P) {
  return fileNameOf(P.File) + ":" + std::to_string(P.Line) + ":" +
         std::to_string(P.Column);
}

/// \p D in the editor's words: kernels by their short names, and on \p Archs
/// when it is the same finding on several architectures.
json diagnosticJson(const Diagnostic &D, const std::string &Archs,
                    const std::string &Path, const Document &Doc,
                    const FeatureOptions &Opts, const KernelNames &Names) {
  auto Said = [&](const std::string &Message,
                  const std::vector<MessageSlot> &Slots) {
    return spellMessage(Message, Slots,
                        [&](const MessageSlot &S, std::string_view Text) {
                          if (S.K == MessageSlot::Kind::Kernel)
                            return Names.of(std::string(Text));
                          return Archs.empty() ? std::string(Text) : Archs;
                        });
  };
  json J;
  std::string Message = Said(D.Message, D.Slots);
  if (D.Loc.File == Path && D.Loc.valid()) {
    J["range"] = tokenRange(Doc, D.Loc.Line, D.Loc.Column, Opts.Encoding);
  } else {
    // A finding in a header the file includes: at the first note in this file
    // (the instantiation), else at the #include line.
    const Note *Here = nullptr;
    for (const Note &N : D.Notes)
      if (N.Loc.File == Path && N.Loc.valid()) {
        Here = &N;
        break;
      }
    if (Here)
      J["range"] =
          tokenRange(Doc, Here->Loc.Line, Here->Loc.Column, Opts.Encoding);
    else {
      unsigned L = D.Loc.File.empty() ? 1 : includeLine(Doc, D.Loc.File);
      Position S{L - 1, 0};
      Position E{L - 1, charactersOf(Doc.line(L - 1), Doc.line(L - 1).size(),
                                     Opts.Encoding)};
      J["range"] = rangeJson(S, E);
    }
    if (!D.Loc.File.empty() && D.Loc.File != Path)
      Message = "in included file " + where(D.Loc) + ": " + Message;
  }
  J["severity"] = lspSeverity(D.Level);
  J["source"] = "tilefit";
  J["code"] = D.Check;
  if (!Opts.DocsUri.empty() && D.Check.rfind("tilefit-", 0) == 0)
    J["codeDescription"] = {{"href", Opts.DocsUri + "#" + D.Check}};
  // A finding at its own place, by a check a NOLINT comment there can accept:
  // the quick fix adds one (codeActionsFor).
  if (D.Loc.File == Path && D.Loc.valid() && D.Check.rfind("tilefit-", 0) == 0)
    J["data"] = {{"nolintLine", D.Loc.Line - 1}};
  // The edits its notes suggest ("what would fit", `extern __shared__`):
  // quick fixes as well (codeActionsFor), where every edit is in this file.
  json Fixes = json::array();
  for (const Note &N : D.Notes) {
    if (!N.Fix || N.Fix->Edits.empty() ||
        std::any_of(N.Fix->Edits.begin(), N.Fix->Edits.end(),
                    [&](const TextEdit &E) {
                      return E.At.File != Path || !E.At.valid();
                    }))
      continue;
    json Edits = json::array();
    for (const TextEdit &E : N.Fix->Edits) {
      const Position S = Doc.positionOf(E.At.Line, E.At.Column, Opts.Encoding);
      const Position End =
          Doc.positionOf(E.At.Line, E.At.Column + E.Length, Opts.Encoding);
      Edits.push_back({{"range", rangeJson(S, End)}, {"newText", E.Text}});
    }
    Fixes.push_back({{"title", N.Fix->Title}, {"edits", std::move(Edits)}});
  }
  if (!Fixes.empty())
    J["data"]["fixes"] = std::move(Fixes);
  json Related = json::array();
  for (const Note &N : D.Notes) {
    if (Opts.RelatedInformation && N.Loc.valid()) {
      json Range;
      if (N.Loc.File == Path)
        Range = tokenRange(Doc, N.Loc.Line, N.Loc.Column, Opts.Encoding);
      else
        Range =
            rangeJson({N.Loc.Line - 1, N.Loc.Column ? N.Loc.Column - 1 : 0},
                      {N.Loc.Line - 1, N.Loc.Column ? N.Loc.Column - 1 : 0});
      Related.push_back(
          {{"location", {{"uri", pathToUri(N.Loc.File)}, {"range", Range}}},
           {"message", Said(N.Message, N.Slots)}});
    } else {
      Message += "\n\n" +
                 (N.Loc.valid() ? where(N.Loc) + ": " : std::string()) +
                 "note: " + Said(N.Message, N.Slots);
    }
  }
  if (!Related.empty())
    J["relatedInformation"] = Related;
  J["message"] = Message;
  return J;
}

/// A variable of a kernel, with the kernel on its architecture.
struct Placed {
  const KernelReport *Kernel;
  const SharedVar *Var;
  std::optional<uint64_t> Offset;
  enum { Static, Dynamic, Unused } Kind;
};

/// Every variable declared at \p Path (on line \p Line, 1-based, when nonzero).
std::vector<Placed> variablesIn(const Report &R, const std::string &Path,
                                unsigned Line = 0) {
  std::vector<Placed> Out;
  auto Wanted = [&](const SharedVar &V) {
    return V.Loc.File == Path && (Line == 0 || V.Loc.Line == Line);
  };
  for (const KernelReport &K : R.Kernels) {
    for (const AllocationReport &A : K.Allocations)
      if (Wanted(A.Var))
        Out.push_back({&K, &A.Var, A.Offset, Placed::Static});
    for (const SharedVar &V : K.DynamicVars)
      if (Wanted(V))
        Out.push_back({&K, &V, std::nullopt, Placed::Dynamic});
    for (const SharedVar &V : K.Unreferenced)
      if (Wanted(V))
        Out.push_back({&K, &V, std::nullopt, Placed::Unused});
  }
  return Out;
}

std::string shapeText(const SharedVar &V) {
  std::string S;
  for (uint64_t E : V.Shape)
    S += std::to_string(E) + " × ";
  return S + std::to_string(V.ElementBytes) + " B (`" + V.ElementType + "`)";
}

std::string optBytes(const std::optional<uint64_t> &B) {
  return B ? exactBytes(*B) : "unknown";
}

/// Static + the largest launch's dynamic bytes, as text.
std::string kernelTotal(const KernelReport &K) {
  if (K.WorstLaunch && K.Launches[*K.WorstLaunch].TotalBytes)
    return exactBytes(*K.Launches[*K.WorstLaunch].TotalBytes);
  return optBytes(K.StaticBytes) + (K.DynamicDeclared ? " + dynamic" : "");
}

std::string blocksText(const KernelReport &K) {
  if (K.Occupancy.BlocksPerSm)
    return std::to_string(*K.Occupancy.BlocksPerSm) +
           (K.Occupancy.LimitedBy.empty() ? ""
                                          : " (" + K.Occupancy.LimitedBy + ")");
  return "—";
}

std::string limitText(const KernelReport &K) {
  return optBytes(K.Limit.BlockOptinMax);
}

json markdown(const std::string &Text) {
  return {{"contents", {{"kind", "markdown"}, {"value", Text}}}};
}

std::vector<const KernelReport *>
sortedByArch(std::vector<const KernelReport *> Ks) {
  std::stable_sort(Ks.begin(), Ks.end(),
                   [](const KernelReport *A, const KernelReport *B) {
                     return archBefore(A->Arch, B->Arch);
                   });
  return Ks;
}

std::string footprintText(const std::vector<const KernelReport *> &Ks);

/// The last paragraph of a hover whose heading shortened \p Full (a CuTe
/// type or kernel name): the whole of it; "" when nothing was shortened.
std::string fullNameLast(const std::string &What, const std::string &Full,
                         const std::string &Short) {
  return Short == Full ? "" : "\n\n" + What + ": `" + Full + "`";
}

json variableHover(const std::vector<Placed> &Vars) {
  const SharedVar &V = *Vars.front().Var;
  // The readable name and the figure first; a long type (CuTe's storage)
  // whole only at the end.
  const std::string Type = shortName(V.Type, DefaultNameWidth);
  const std::string Last = fullNameLast("Type", V.Type, Type);
  std::string T = "**`" + V.Name + "`** — `__shared__ " + Type + "`";
  if (Vars.front().Kind == Placed::Dynamic) {
    T += "\n\n`extern __shared__`: sized at launch.\n\n| kernel | arch | "
         "static | largest launch | "
         "per-block max | blocks/SM |\n|---|---|---|---|---|---|\n";
    for (const Placed &P : Vars) {
      const KernelReport &K = *P.Kernel;
      std::string Launch = "—";
      if (K.WorstLaunch)
        Launch = "+ " + optBytes(K.Launches[*K.WorstLaunch].DynamicBytes) +
                 " at line " +
                 std::to_string(K.Launches[*K.WorstLaunch].Loc.Line);
      else if (!K.Launches.empty())
        Launch = "unknown";
      T += "| `" + shortName(K.Name, DefaultNameWidth) + "` | " + K.Arch +
           " | " + optBytes(K.StaticBytes) + " | " + Launch + " | " +
           limitText(K) + " | " + blocksText(K) + " |\n";
    }
    return markdown(T + Last);
  }
  if (!V.Shape.empty() || V.ElementBytes)
    T += "\n\n" + shapeText(V) + ", align " + std::to_string(V.Align) + ": **" +
         (V.Bytes ? std::to_string(*V.Bytes) + " bytes (" +
                        humanBytes(*V.Bytes) + ")"
                  : "unknown size" + (V.UnknownReason.empty()
                                          ? ""
                                          : ": " + describe(V.UnknownReason))) +
         "**";
  T += "\n\n| kernel | arch | bytes | offset | kernel total | per-block max | "
       "blocks/SM |\n"
       "|---|---|---|---|---|---|---|\n";
  for (const Placed &P : Vars) {
    const KernelReport &K = *P.Kernel;
    std::string Offset = P.Kind == Placed::Unused ? "not allocated (unused)"
                         : P.Offset               ? std::to_string(*P.Offset)
                                                  : "unknown";
    T += "| `" + shortName(K.Name, DefaultNameWidth) + "` | " + K.Arch + " | " +
         optBytes(P.Var->Bytes) + " | " + Offset + " | " + kernelTotal(K) +
         " | " + limitText(K) + " | " + blocksText(K) + " |\n";
  }
  return markdown(T + Last);
}

json kernelHover(const std::vector<const KernelReport *> &Ks) {
  // The readable name and the footprint first; a CuTe name whole at the end.
  const std::string &Full = Ks.front()->Name;
  const std::string Short = shortName(Full, DefaultNameWidth);
  std::string T =
      "**`__global__ " + Short + "`** — " + footprintText(Ks) +
      "\n\nShared memory per block:\n\n"
      "| arch | static | dynamic (largest launch) | total | per-block max | "
      "blocks/SM |\n|---|---|---|---|---|---|\n";
  for (const KernelReport *K : Ks) {
    std::string Dyn = "—";
    if (K->WorstLaunch)
      Dyn = optBytes(K->Launches[*K->WorstLaunch].DynamicBytes);
    else if (K->DynamicDeclared)
      Dyn = K->Launches.empty() ? "no launch seen" : "unknown";
    T += "| " + K->Arch + " | " + optBytes(K->StaticBytes) + " | " + Dyn +
         " | " + kernelTotal(*K) + " | " + limitText(*K) + " | " +
         blocksText(*K) + " |\n";
  }
  return markdown(T + fullNameLast("Full name", Full, Short));
}

/// Whether character \p C of line \p Line (0-based) lies on the token at
/// Clang's (Line, Col).
bool onToken(const Document &Doc, const SourcePos &Loc, Position P,
             PositionEncoding E) {
  if (Loc.Line != P.Line + 1)
    return false;
  json R = tokenRange(Doc, Loc.Line, Loc.Column, E);
  unsigned S = R["start"]["character"], Fin = R["end"]["character"];
  return P.Character >= S && P.Character <= Fin;
}

} // namespace

namespace {

/// A finding as the editor shows it: on the architectures it is the same on.
struct MergedFinding {
  Diagnostic D;
  std::string Archs; ///< `sm_80, sm_90 and sm_120` for several; empty for one.
};

/// \p Message with its architecture slots spelled \p Arch (kernel slots as they
/// are).
std::string withArch(const std::string &Message,
                     const std::vector<MessageSlot> &Slots,
                     const std::string &Arch) {
  return spellMessage(
      Message, Slots, [&](const MessageSlot &S, std::string_view Text) {
        return S.K == MessageSlot::Kind::Arch ? Arch : std::string(Text);
      });
}

/// The same finding on several architectures (the same place, check and words
/// but for the architecture's name) is one diagnostic naming them: `on sm_80,
/// sm_90 and sm_120`.
std::vector<MergedFinding> mergeArchitectures(std::vector<Diagnostic> Ds) {
  const std::string Slot = "\x01";
  auto Key = [&](const Diagnostic &D) {
    std::string K = D.Loc.File + ":" + std::to_string(D.Loc.Line) + ":" +
                    std::to_string(D.Loc.Column) + "|" +
                    std::to_string(int(D.Level)) + "|" + D.Check + "|" +
                    withArch(D.Message, D.Slots, Slot);
    for (const Note &N : D.Notes)
      K += "|" + withArch(N.Message, N.Slots, Slot) + "@" + N.Loc.File + ":" +
           std::to_string(N.Loc.Line);
    return K;
  };
  std::vector<MergedFinding> Out;
  std::vector<std::string> Keys;
  std::vector<std::vector<std::string>> Archs;
  for (Diagnostic &D : Ds) {
    const std::string K = D.Arch.empty() ? std::string() : Key(D);
    auto It = K.empty() ? Keys.end() : std::find(Keys.begin(), Keys.end(), K);
    if (It != Keys.end()) {
      auto &A = Archs[It - Keys.begin()];
      if (std::find(A.begin(), A.end(), D.Arch) == A.end())
        A.push_back(D.Arch);
      continue;
    }
    Keys.push_back(K);
    Archs.push_back({D.Arch});
    Out.push_back({std::move(D), ""});
  }
  for (size_t I = 0; I < Out.size(); ++I) {
    const auto &A = Archs[I];
    if (A.size() < 2)
      continue;
    for (size_t J = 0; J < A.size(); ++J)
      Out[I].Archs += (J == 0 ? "" : J + 1 == A.size() ? " and " : ", ") + A[J];
  }
  return Out;
}

} // namespace

json diagnosticsFor(const Report &R, const std::string &Path,
                    const Document &Doc, const FeatureOptions &Opts) {
  json Out = json::array();
  std::set<std::string> Seen;
  // CuTe's kernel names run to thousands of characters: the editor gets the
  // short forms the text report prints.
  const KernelNames Names(R, DefaultNameWidth);
  std::vector<Diagnostic> Ds;
  for (const UnitReport &U : R.Units)
    if (U.File == Path)
      Ds.insert(Ds.end(), U.Messages.begin(), U.Messages.end());
  for (const Diagnostic &D : R.Diagnostics)
    if (D.Loc.File == Path || D.TranslationUnit == Path)
      Ds.push_back(D);
  for (const MergedFinding &M : mergeArchitectures(std::move(Ds))) {
    json J = diagnosticJson(M.D, M.Archs, Path, Doc, Opts, Names);
    // A path or message that is not UTF-8 (a file named in Latin-1) must not
    // throw here: the key only tells duplicates apart, and the transport
    // replaces such bytes too.
    if (Seen.insert(J.dump(-1, ' ', false, json::error_handler_t::replace))
            .second)
      Out.push_back(std::move(J));
  }
  return Out;
}

/// The bank conflicts of the load or store under the cursor, kernel by
/// kernel and architecture by architecture.
json accessHover(
    const std::vector<std::pair<const KernelReport *, const BankAccessReport *>>
        &As) {
  const BankAccessReport &First = *As.front().second;
  std::string T = "**`" + First.Access.Text + "`** — " +
                  (First.Access.Store ? "store to" : "load of") + " `" +
                  First.Var.Name + "`, " + std::to_string(First.Access.Width) +
                  " bytes per thread\n\n| kernel | arch | banks | wavefronts a "
                  "phase | block |\n|---|---|---|---|---|\n";
  for (const auto &[K, B] : As) {
    const BankVerdict &V = B->Verdict;
    std::string Banks;
    if (!V.Analysed) {
      Banks = "not analysed: " + describe(V.Why);
    } else {
      Banks = V.Degree <= 1
                  ? "conflict-free"
                  : "**" + std::to_string(V.Degree) + "-way** (bank " +
                        std::to_string(V.WorstBank) + ")";
      if (V.Degree > 1 && !B->WorstCounters.empty()) {
        Banks += " at ";
        for (size_t I = 0; I < B->WorstCounters.size(); ++I)
          Banks += (I ? ", " : "") + B->WorstCounters[I].first + " = " +
                   std::to_string(B->WorstCounters[I].second);
      }
    }
    std::string Waves;
    for (size_t I = 0; I < V.Wavefronts.size(); ++I)
      Waves += (I ? " " : "") + std::to_string(V.Wavefronts[I]);
    const std::string Block = B->Block.Known
                                  ? std::to_string(B->Block.Dim[0]) + "×" +
                                        std::to_string(B->Block.Dim[1]) + "×" +
                                        std::to_string(B->Block.Dim[2]) + " (" +
                                        B->Block.Source + ")"
                                  : "first warp (assumed)";
    T += "| `" + shortName(K->Name, DefaultNameWidth) + "` | " + K->Arch +
         " | " + Banks + " | " + (Waves.empty() ? "—" : Waves) + " | " + Block +
         " |\n";
  }
  return markdown(T);
}

json hoverAt(const Report &R, const std::string &Path, const Document &Doc,
             Position P, const FeatureOptions &Opts) {
  std::vector<Placed> Vars = variablesIn(R, Path, P.Line + 1);
  if (!Vars.empty()) {
    // Several declarations on the line: the one under the cursor, else the
    // first.
    std::string Name = Vars.front().Var->Name;
    for (const Placed &V : Vars)
      if (onToken(Doc, V.Var->Loc, P, Opts.Encoding)) {
        Name = V.Var->Name;
        break;
      }
    std::vector<Placed> Same;
    for (const Placed &V : Vars)
      if (V.Var->Name == Name)
        Same.push_back(V);
    std::stable_sort(Same.begin(), Same.end(),
                     [](const Placed &A, const Placed &B) {
                       return archBefore(A.Kernel->Arch, B.Kernel->Arch);
                     });
    return variableHover(Same);
  }
  // A load or store of a __shared__ variable: its bank conflicts.
  std::vector<std::pair<const KernelReport *, const BankAccessReport *>> As;
  for (const KernelReport &K : R.Kernels)
    for (const BankAccessReport &B : K.BankAccesses)
      if (B.Access.Loc.File == Path && B.Access.Loc.Line == P.Line + 1 &&
          onToken(Doc, B.Access.Loc, P, Opts.Encoding) &&
          (As.empty() ||
           (B.Access.Loc.Column == As.front().second->Access.Loc.Column &&
            B.Access.Store == As.front().second->Access.Store &&
            B.Access.Text == As.front().second->Access.Text)))
        As.push_back({&K, &B});
  if (!As.empty()) {
    std::stable_sort(As.begin(), As.end(), [](const auto &A, const auto &B) {
      return archBefore(A.first->Arch, B.first->Arch);
    });
    return accessHover(As);
  }
  std::vector<const KernelReport *> Ks;
  std::string Name;
  for (const KernelReport &K : R.Kernels)
    if (K.Loc.File == Path && onToken(Doc, K.Loc, P, Opts.Encoding) &&
        (Name.empty() || K.Name == Name)) {
      Name = K.Name;
      Ks.push_back(&K);
    }
  if (Ks.empty())
    return nullptr;
  return kernelHover(sortedByArch(Ks));
}

json inlayHintsFor(const Report &R, const std::string &Path,
                   const Document &Doc, unsigned FromLine, unsigned ToLine,
                   const FeatureOptions &Opts) {
  // One hint per declaration: its bytes, per architecture where they differ.
  struct Hint {
    const SharedVar *Var;
    std::map<std::string, std::set<std::string>> ArchsOfLabel;
    std::vector<std::string> Tooltip;
  };
  std::map<std::tuple<unsigned, unsigned, std::string>, Hint> Hints;
  for (const Placed &P : variablesIn(R, Path)) {
    unsigned L = P.Var->Loc.Line;
    if (L == 0 || L - 1 < FromLine || L - 1 > ToLine)
      continue;
    std::string Label;
    if (P.Kind == Placed::Dynamic) {
      const KernelReport &K = *P.Kernel;
      Label = K.WorstLaunch
                  ? "dynamic, " +
                        optBytes(K.Launches[*K.WorstLaunch].DynamicBytes) +
                        " at launch"
                  : "dynamic";
    } else if (P.Kind == Placed::Unused) {
      Label = "unused, 0 B";
    } else {
      Label = optBytes(P.Var->Bytes);
    }
    Hint &H = Hints[{L, P.Var->Loc.Column, P.Var->Name}];
    H.Var = P.Var;
    H.ArchsOfLabel[Label].insert(P.Kernel->Arch);
    H.Tooltip.push_back(P.Kernel->Name + " on " + P.Kernel->Arch + ": " +
                        Label);
  }
  json Out = json::array();
  for (auto &[Key, H] : Hints) {
    // Labels in the order of their first architecture.
    std::vector<std::pair<std::string, std::set<std::string>>> Labels(
        H.ArchsOfLabel.begin(), H.ArchsOfLabel.end());
    auto FirstArch = [](const std::set<std::string> &Archs) {
      std::string Min = *Archs.begin();
      for (const std::string &A : Archs)
        if (archBefore(A, Min))
          Min = A;
      return Min;
    };
    std::stable_sort(
        Labels.begin(), Labels.end(), [&](const auto &A, const auto &B) {
          return archBefore(FirstArch(A.second), FirstArch(B.second));
        });
    std::string Label;
    for (const auto &[Text, Archs] : Labels) {
      if (!Label.empty())
        Label += " | ";
      Label += Text;
      if (H.ArchsOfLabel.size() > 1) {
        std::vector<std::string> A(Archs.begin(), Archs.end());
        std::stable_sort(A.begin(), A.end(), archBefore);
        std::string List;
        for (const std::string &X : A)
          List += (List.empty() ? "" : ", ") + X;
        Label += " (" + List + ")";
      }
    }
    // After the declaration: past the ';' that ends it on its line, else at the
    // line's end.
    unsigned Line = std::get<0>(Key);
    std::string Text = Doc.line(Line - 1);
    size_t From = std::get<1>(Key) ? std::get<1>(Key) - 1 : 0;
    size_t Semi = Text.find(';', From);
    size_t At = Semi == std::string::npos ? Text.size() : Semi + 1;
    std::string Tip;
    std::set<std::string> Unique(H.Tooltip.begin(), H.Tooltip.end());
    for (const std::string &T : Unique)
      Tip += (Tip.empty() ? "" : "\n") + T;
    Out.push_back({{"position",
                    toJson({Line - 1, charactersOf(Text, At, Opts.Encoding)})},
                   {"label", Label},
                   {"paddingLeft", true},
                   {"tooltip", Tip}});
  }
  return Out;
}

namespace {

/// The kernels (instantiations) located in \p Path, in the report's order,
/// each with its architectures in order.
std::vector<std::vector<const KernelReport *>>
kernelsIn(const Report &R, const std::string &Path) {
  std::vector<std::string> Order;
  std::map<std::string, std::vector<const KernelReport *>> ByName;
  for (const KernelReport &K : R.Kernels) {
    if (K.Loc.File != Path || !K.Loc.valid())
      continue;
    if (!ByName.count(K.Name))
      Order.push_back(K.Name);
    ByName[K.Name].push_back(&K);
  }
  std::vector<std::vector<const KernelReport *>> Out;
  for (const std::string &Name : Order)
    Out.push_back(sortedByArch(ByName[Name]));
  return Out;
}

/// `sm_80 8 KiB (<=4/SM) · sm_90 16 KiB (<=4/SM)`.
std::string footprintText(const std::vector<const KernelReport *> &Ks) {
  std::string Text;
  for (size_t I = 0; I < Ks.size(); ++I)
    Text += (I ? " · " : "") + Ks[I]->Arch + " " + summaryCell(*Ks[I]);
  return Text;
}

} // namespace

json codeLensesFor(const Report &R, const std::string &Path,
                   const Document &Doc, const FeatureOptions &Opts) {
  // One lens per kernel (instantiation), listing its architectures in order.
  json Out = json::array();
  for (const std::vector<const KernelReport *> &Ks : kernelsIn(R, Path)) {
    const KernelReport &First = *Ks.front();
    const std::string &Name = First.Name;
    std::string Title = "shared memory: ";
    std::string Token =
        Doc.line(First.Loc.Line - 1)
            .substr(First.Loc.Column ? First.Loc.Column - 1 : 0, Name.size());
    if (Token != Name)
      Title = Name + ": ";
    Title += footprintText(Ks);
    Out.push_back({{"range", tokenRange(Doc, First.Loc.Line, First.Loc.Column,
                                        Opts.Encoding)},
                   {"command", {{"title", Title}, {"command", ""}}}});
  }
  return Out;
}

json documentSymbolsFor(const Report &R, const std::string &Path,
                        const Document &Doc, const FeatureOptions &Opts) {
  constexpr int FunctionKind = 12, VariableKind = 13; // SymbolKind
  json Out = json::array();
  for (const std::vector<const KernelReport *> &Ks : kernelsIn(R, Path)) {
    const KernelReport &First = *Ks.front();
    json Children = json::array();
    for (const AllocationReport &A : First.Allocations) {
      const SharedVar &V = A.Var;
      if (V.Loc.File != Path || !V.Loc.valid())
        continue;
      const json Range =
          tokenRange(Doc, V.Loc.Line, V.Loc.Column, Opts.Encoding);
      Children.push_back({{"name", V.Name},
                          {"detail", V.Type + ", " + optBytes(V.Bytes)},
                          {"kind", VariableKind},
                          {"range", Range},
                          {"selectionRange", Range}});
    }
    const json Range =
        tokenRange(Doc, First.Loc.Line, First.Loc.Column, Opts.Encoding);
    Out.push_back({{"name", First.Name},
                   {"detail", footprintText(Ks)},
                   {"kind", FunctionKind},
                   {"range", Range},
                   {"selectionRange", Range},
                   {"children", std::move(Children)}});
  }
  return Out;
}

json codeActionsFor(const std::string &Uri, const Document &Doc,
                    const std::vector<json> &Diagnostics,
                    const FeatureOptions &Opts) {
  json Out = json::array();
  for (const json &D : Diagnostics) {
    const json Data = D.value("data", json());
    // The notes' edits (diagnosticJson), first: they change the code so that
    // the finding goes away, where NOLINT only accepts it.
    if (D.value("source", "") == "tilefit" && Data.is_object() &&
        Data.contains("fixes") && Data["fixes"].is_array())
      for (const json &F : Data["fixes"]) {
        if (!F.is_object() || !F.contains("title") || !F["title"].is_string() ||
            !F.contains("edits") || !F["edits"].is_array() ||
            F["edits"].empty())
          continue;
        json Edits = json::array();
        for (const json &E : F["edits"])
          if (E.is_object() && E.contains("range") && E.contains("newText") &&
              E["newText"].is_string())
            Edits.push_back({{"range", E["range"]}, {"newText", E["newText"]}});
        if (Edits.size() != F["edits"].size())
          continue;
        Out.push_back(
            {{"title", "Make it fit: " + F["title"].get<std::string>()},
             {"kind", "quickfix"},
             {"diagnostics", json::array({D})},
             {"isPreferred", true},
             {"edit", {{"changes", {{Uri, std::move(Edits)}}}}}});
      }
    // diagnosticJson's marks: this server's finding, at its own line.
    if (D.value("source", "") != "tilefit" || !Data.is_object() ||
        !Data.contains("nolintLine") ||
        !Data["nolintLine"].is_number_unsigned() || !D.contains("code") ||
        !D["code"].is_string())
      continue;
    const std::string Check = D["code"];
    const unsigned Line = Data["nolintLine"];
    if (Line >= Doc.lineCount())
      continue;
    const std::string Text = Doc.line(Line);
    // A line that has a NOLINT already is the author's to edit.
    if (Text.find("NOLINT") != std::string::npos)
      continue;
    const Position End = Doc.positionOf(
        Line + 1, static_cast<unsigned>(Text.size()) + 1, Opts.Encoding);
    json Edit = {{"range", rangeJson(End, End)},
                 {"newText", " // NOLINT(" + Check + ")"}};
    Out.push_back({{"title", "Accept this finding: // NOLINT(" + Check + ")"},
                   {"kind", "quickfix"},
                   {"diagnostics", json::array({D})},
                   {"edit", {{"changes", {{Uri, json::array({Edit})}}}}}});
  }
  return Out;
}

} // namespace lsp
} // namespace tilefit
