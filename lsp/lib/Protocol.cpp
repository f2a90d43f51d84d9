//===- Protocol.cpp - URIs, positions and documents of the LSP ------------===//
#include "tilefit/lsp/Protocol.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace tilefit {
namespace lsp {
namespace {

/// The length of the UTF-8 sequence starting with byte \p C (1 for invalid
/// bytes).
size_t sequenceLength(unsigned char C) {
  if (C < 0x80)
    return 1;
  if ((C >> 5) == 0x6)
    return 2;
  if ((C >> 4) == 0xE)
    return 3;
  if ((C >> 3) == 0x1E)
    return 4;
  return 1;
}

/// Code units of one code point of \p Bytes UTF-8 bytes in encoding \p E.
unsigned unitsOf(size_t Bytes, PositionEncoding E) {
  switch (E) {
  case PositionEncoding::Utf8:
    return static_cast<unsigned>(Bytes);
  case PositionEncoding::Utf16:
    return Bytes == 4 ? 2 : 1;
  case PositionEncoding::Utf32:
    return 1;
  }
  return 1;
}

int hexValue(char C) {
  if (C >= '0' && C <= '9')
    return C - '0';
  if (C >= 'a' && C <= 'f')
    return C - 'a' + 10;
  if (C >= 'A' && C <= 'F')
    return C - 'A' + 10;
  return -1;
}

} // namespace

const char *encodingName(PositionEncoding E) {
  switch (E) {
  case PositionEncoding::Utf8:
    return "utf-8";
  case PositionEncoding::Utf16:
    return "utf-16";
  case PositionEncoding::Utf32:
    return "utf-32";
  }
  return "utf-16";
}

std::optional<std::string> uriToPath(const std::string &Uri) {
  const std::string Scheme = "file://";
  if (Uri.compare(0, Scheme.size(), Scheme) != 0)
    return std::nullopt;
  std::string Rest = Uri.substr(Scheme.size());
  // An authority: empty or localhost.
  if (Rest.compare(0, 9, "localhost") == 0)
    Rest = Rest.substr(9);
  if (Rest.empty() || Rest[0] != '/')
    return std::nullopt;
  std::string Path;
  for (size_t I = 0; I < Rest.size(); ++I) {
    if (Rest[I] == '%' && I + 2 < Rest.size() && hexValue(Rest[I + 1]) >= 0 &&
        hexValue(Rest[I + 2]) >= 0) {
      Path +=
          static_cast<char>(hexValue(Rest[I + 1]) * 16 + hexValue(Rest[I + 2]));
      I += 2;
    } else if (Rest[I] == '?' || Rest[I] == '#') {
      break;
    } else {
      Path += Rest[I];
    }
  }
  if (Path.find('\0') != std::string::npos)
    return std::nullopt;
  return Path;
}

std::string pathToUri(const std::string &Path) {
  static const char *Hex = "0123456789ABCDEF";
  std::string Uri = "file://";
  for (unsigned char C : Path) {
    if (std::isalnum(C) || C == '/' || C == '-' || C == '_' || C == '.' ||
        C == '~' || C == '+' || C == '@' || C == ':')
      Uri += static_cast<char>(C);
    else {
      Uri += '%';
      Uri += Hex[C >> 4];
      Uri += Hex[C & 15];
    }
  }
  return Uri;
}

void Document::setText(std::string NewText) {
  Text = std::move(NewText);
  LineStarts.assign(1, 0);
  for (size_t I = 0; I < Text.size(); ++I)
    if (Text[I] == '\n')
      LineStarts.push_back(I + 1);
}

std::string Document::line(unsigned L) const {
  if (L >= LineStarts.size())
    return "";
  size_t Start = LineStarts[L];
  size_t End = L + 1 < LineStarts.size() ? LineStarts[L + 1] - 1 : Text.size();
  if (End > Start && Text[End - 1] == '\r')
    --End;
  return Text.substr(Start, End - Start);
}

unsigned charactersOf(const std::string &Line, size_t Bytes,
                      PositionEncoding E) {
  unsigned Units = 0;
  size_t I = 0;
  Bytes = std::min(Bytes, Line.size());
  while (I < Bytes) {
    size_t N = sequenceLength(static_cast<unsigned char>(Line[I]));
    Units += unitsOf(N, E);
    I += N;
  }
  return Units;
}

size_t bytesOf(const std::string &Line, unsigned Character,
               PositionEncoding E) {
  unsigned Units = 0;
  size_t I = 0;
  while (I < Line.size() && Units < Character) {
    size_t N = std::min(sequenceLength(static_cast<unsigned char>(Line[I])),
                        Line.size() - I);
    Units += unitsOf(N, E);
    I += N;
  }
  return I;
}

size_t Document::offsetOf(Position P, PositionEncoding E) const {
  if (P.Line >= LineStarts.size())
    return Text.size();
  return LineStarts[P.Line] + bytesOf(line(P.Line), P.Character, E);
}

Position Document::positionOf(unsigned Line, unsigned Column,
                              PositionEncoding E) const {
  Position P;
  P.Line = Line ? Line - 1 : 0;
  P.Character = charactersOf(line(P.Line), Column ? Column - 1 : 0, E);
  return P;
}

bool Document::applyChange(const nlohmann::json &Change, PositionEncoding E) {
  if (!Change.is_object() || !Change.contains("text") ||
      !Change["text"].is_string())
    return false;
  const std::string &NewText = Change["text"].get_ref<const std::string &>();
  if (!Change.contains("range") || Change["range"].is_null()) {
    setText(NewText);
    return true;
  }
  const nlohmann::json &Range = Change["range"];
  if (!Range.is_object() || !Range.contains("start") || !Range.contains("end"))
    return false;
  std::optional<Position> Start = readPosition(Range["start"]);
  std::optional<Position> End = readPosition(Range["end"]);
  if (!Start || !End)
    return false;
  size_t From = offsetOf(*Start, E), To = offsetOf(*End, E);
  if (To < From)
    return false;
  std::string Next = Text.substr(0, From) + NewText + Text.substr(To);
  setText(std::move(Next));
  return true;
}

std::optional<Position> readPosition(const nlohmann::json &J) {
  if (!J.is_object() || !J.contains("line") || !J.contains("character") ||
      !J["line"].is_number_unsigned() || !J["character"].is_number_unsigned())
    return std::nullopt;
  Position P;
  P.Line = J["line"].get<unsigned>();
  P.Character = J["character"].get<unsigned>();
  return P;
}

nlohmann::json toJson(Position P) {
  return {{"line", P.Line}, {"character", P.Character}};
}

nlohmann::json rangeJson(Position Start, Position End) {
  return {{"start", toJson(Start)}, {"end", toJson(End)}};
}

//===--- The messages tilefit reads, typed
//---------------------------------===//

namespace {

const nlohmann::json &member(const nlohmann::json &Obj, const char *Key) {
  if (!Obj.is_object() || !Obj.contains(Key))
    throw BadParams(std::string("missing '") + Key + "'");
  return Obj[Key];
}

std::string stringMember(const nlohmann::json &Obj, const char *Key) {
  const nlohmann::json &V = member(Obj, Key);
  if (!V.is_string())
    throw BadParams(std::string("'") + Key + "' must be a string");
  return V.get<std::string>();
}

/// \p Obj's member \p Key, or an empty object where there is none or it is
/// not an object.
nlohmann::json objectMember(const nlohmann::json &Obj, const char *Key) {
  if (!Obj.is_object())
    return nlohmann::json::object();
  nlohmann::json V = Obj.value(Key, nlohmann::json::object());
  return V.is_object() ? V : nlohmann::json::object();
}

DocumentRef documentRefFrom(const nlohmann::json &Doc) {
  DocumentRef D;
  D.Uri = stringMember(Doc, "uri");
  std::optional<std::string> Path = uriToPath(D.Uri);
  if (!Path)
    throw BadParams("'" + D.Uri + "' is not a file: URI");
  D.Path = *Path;
  D.Version = Doc.value("version", nlohmann::json(nullptr));
  return D;
}

} // namespace

InitializeParams readInitializeParams(const nlohmann::json &Params) {
  InitializeParams P;
  const nlohmann::json Caps = objectMember(Params, "capabilities");
  const nlohmann::json General = objectMember(Caps, "general");
  if (General.contains("positionEncodings") &&
      General["positionEncodings"].is_array())
    for (const nlohmann::json &E : General["positionEncodings"])
      P.Utf8Positions |= E == "utf-8";
  P.RelatedInformation =
      objectMember(objectMember(Caps, "textDocument"), "publishDiagnostics")
          .value("relatedInformation", false) == true;
  if (Params.is_object() && Params.contains("initializationOptions"))
    P.InitializationOptions = Params["initializationOptions"];
  auto AddRoot = [&](const nlohmann::json &Uri) {
    if (Uri.is_string())
      if (std::optional<std::string> Path = uriToPath(Uri.get<std::string>()))
        P.Roots.push_back(*Path);
  };
  if (!Params.is_object())
    return P;
  if (Params.contains("workspaceFolders") &&
      Params["workspaceFolders"].is_array())
    for (const nlohmann::json &F : Params["workspaceFolders"])
      if (F.is_object() && F.contains("uri"))
        AddRoot(F["uri"]);
  if (P.Roots.empty() && Params.contains("rootUri"))
    AddRoot(Params["rootUri"]);
  if (P.Roots.empty() && Params.contains("rootPath") &&
      Params["rootPath"].is_string() &&
      !Params["rootPath"].get<std::string>().empty())
    P.Roots.push_back(Params["rootPath"].get<std::string>());
  return P;
}

DocumentRef readDocumentRef(const nlohmann::json &Params) {
  return documentRefFrom(member(Params, "textDocument"));
}

DidOpenParams readDidOpenParams(const nlohmann::json &Params) {
  const nlohmann::json &Item = member(Params, "textDocument");
  DidOpenParams P;
  P.Doc = documentRefFrom(Item);
  P.Text = stringMember(Item, "text");
  return P;
}

DidChangeParams readDidChangeParams(const nlohmann::json &Params) {
  DidChangeParams P;
  P.Doc = readDocumentRef(Params);
  P.Changes = member(Params, "contentChanges");
  if (!P.Changes.is_array())
    throw BadParams("'contentChanges' must be an array");
  return P;
}

HoverParams readHoverParams(const nlohmann::json &Params) {
  HoverParams P;
  P.Doc = readDocumentRef(Params);
  std::optional<Position> Pos = readPosition(member(Params, "position"));
  if (!Pos)
    throw BadParams("malformed 'position'");
  P.Pos = *Pos;
  return P;
}

CodeActionParams readCodeActionParams(const nlohmann::json &Params) {
  CodeActionParams P;
  P.Doc = readDocumentRef(Params);
  const nlohmann::json &Context = member(Params, "context");
  const nlohmann::json &Diagnostics = member(Context, "diagnostics");
  if (!Diagnostics.is_array())
    throw BadParams("malformed 'context.diagnostics'");
  for (const nlohmann::json &D : Diagnostics)
    if (D.is_object())
      P.Diagnostics.push_back(D);
  return P;
}

InlayHintParams readInlayHintParams(const nlohmann::json &Params) {
  InlayHintParams P;
  P.Doc = readDocumentRef(Params);
  const nlohmann::json &Range = member(Params, "range");
  std::optional<Position> From = readPosition(member(Range, "start"));
  std::optional<Position> To = readPosition(member(Range, "end"));
  if (!From || !To)
    throw BadParams("malformed 'range'");
  P.Start = *From;
  P.End = *To;
  return P;
}

nlohmann::json readCancelId(const nlohmann::json &Params) {
  return member(Params, "id");
}

std::optional<EditorSettings> readEditorSettings(const nlohmann::json &Raw) {
  const nlohmann::json *S = &Raw;
  if (Raw.is_object() && Raw.contains("tilefit"))
    S = &Raw["tilefit"];
  if (!S->is_object())
    return std::nullopt;
  // Each setting's name in a .tilefit.yaml.
  static const std::map<std::string, std::string> Keys = {
      {"architectures", "Architectures"},
      {"budget", "Budget"},
      {"checks", "Checks"},
      {"capacityDatabase", "CapacityDatabase"}};
  EditorSettings Out;
  for (auto It = S->begin(); It != S->end(); ++It) {
    auto Key = Keys.find(It.key());
    if (Key == Keys.end()) {
      Out.Problems.push_back(
          {MessageType::Warning,
           "unknown setting '" + It.key() +
               "' (known: architectures, budget, checks, capacityDatabase)"});
      continue;
    }
    const std::string Text = nlohmann::json{{Key->second, It.value()}}.dump(
        1, ' ', false, nlohmann::json::error_handler_t::replace);
    llvm::Expected<frontend::Config> One =
        frontend::parseConfig(Text, "the editor's settings", "");
    if (!One) {
      Out.Problems.push_back(
          {MessageType::Error, "ignored setting '" + It.key() +
                                   "': " + llvm::toString(One.takeError())});
      continue;
    }
    Out.Config.overlay(*One);
  }
  return Out;
}

} // namespace lsp
} // namespace tilefit
