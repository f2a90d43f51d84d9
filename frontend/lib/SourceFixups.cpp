//===- SourceFixups.cpp ---------------------------------------------------===//
//
// The rules. Each names the Clang error it answers, what nvcc does with the
// same code (checked with nvcc 13.0; the fixtures under
// tests/fixtures/nvcc_compat/ hold each case with ptxas's figures), and the
// rewrite:
//
// - shared-constructor: `__shared__ cuda::barrier<cuda::thread_scope_block>
// bar;` in a
//   function. nvcc: warning 20054 ("dynamic initialization is not supported for
//   a function-scope static __shared__ variable"); the constructor does not run
//   and ptxas allocates the object. Clang: "initialization is not supported for
//   __shared__ variables", and the variable is invalid (every statement that
//   names it is dropped, and a template instantiation that names it loses its
//   whole body). Rewrite: its `__shared__` becomes
//   `__tf_rsh__` (every parse defines it as `register
//   __attribute__((shared))`), and a `static` before it becomes spaces, so that
//   Clang sees a variable of automatic storage, where the check does not apply,
//   with the same type and attribute.
// - attribute-position: `__shared__ alignas(16) float tile[64];`. nvcc applies
// the alignment
//   (only after a leading `__shared__`: after `static __shared__` it is nvcc's
//   error too). Clang: "an attribute list cannot appear here", and the
//   alignment is dropped. Rewrite: the attribute list moves to the front of the
//   declaration (`alignas(16) __shared__ float ...`).
// - device-launch: `child<<<grid, block>>>(args)` in device code, with -rdc
// (dynamic
//   parallelism). nvcc compiles the launch. Clang 19: "reference to __global__
//   function 'child' in __global__ function" (it has no device-side launch),
//   and the statement is dropped. Rewrite: `(       grid, block), (args)`, an
//   expression that evaluates what the launch evaluates in the calling kernel
//   (its arguments), which is all that matters for the caller's figures: a
//   launch from device code allocates nothing in the caller.
// - asm-percent: `asm("mov.u64 %0, %globaltimer;" : "=l"(t))`. nvcc passes
// `%globaltimer` to
//   ptxas. Clang: "invalid % escape in inline assembly string". Rewrite: that
//   `%` becomes a space (the text of an asm statement matters to tilefit only
//   for tcgen05.alloc).
// - asm-operand-comma: `asm("..." :: "r"(v) "l"(p))`, two operands without a
// comma. nvcc
//   accepts it. Clang: "expected ')'". Rewrite: the blank before the second
//   operand becomes a comma.
// - asm-operand-number: `asm("mov.b32 %0, %8;" : ...)` with eight operands,
//   in an `if constexpr` branch the instantiation discards. nvcc never checks
//   the discarded branch. Clang checks the asm string where the template is
//   defined: "invalid operand number in inline asm string". Rewrite: the
//   number becomes zeros (`%0`, an operand that exists; the text of an asm
//   statement matters to tilefit only for tcgen05.alloc). Where the branch is
//   not discarded, nvcc's ptxas rejects the unit anyway.
// - missing-typename: `sizeof(T::member_type)` on a dependent type, without
//   `typename`. nvcc accepts it (EDG takes the name for the type it turns out
//   to be). Clang: "missing 'typename' prior to dependent type name", and the
//   declaration that holds it is invalid. Rewrite: `typename ` before the name.
// - macro-pragma: `#define UNROLL #pragma unroll`, then `UNROLL` before a
//   loop. nvcc takes the expanded `#pragma` as the pragma. Clang: "expected
//   expression" at the expansion (a `#` is no directive there). Rewrite: the
//   definition's `#pragma unroll` becomes `_Pragma("unroll")`, the operator
//   form a macro may expand to.
//
// A narrowing conversion in braced initialization (`coord c = {blockIdx.z}`
// with `int` fields) is nvcc's warning 2361-D and Clang's error; the parse is
// told -Wno-c++11-narrowing instead of rewriting it (ParseUnit.cpp).
//
//===----------------------------------------------------------------------===//
#include "SourceFixups.h"

#include "tilefit/matchers/SourcePosition.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/DiagnosticAST.h"
#include "clang/Basic/DiagnosticParse.h"
#include "clang/Basic/DiagnosticSema.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <optional>
#include <set>

namespace tilefit {
namespace frontend {
namespace {

using namespace clang;

/// A location's expansion point in a file: the file, its text and the offset.
struct FilePoint {
  FileID File;
  unsigned Offset = 0;
  llvm::StringRef Text;
};

std::optional<FilePoint> pointOf(const SourceManager &SM, SourceLocation Loc) {
  if (Loc.isInvalid())
    return std::nullopt;
  auto [FID, Offset] = SM.getDecomposedExpansionLoc(Loc);
  if (FID.isInvalid() || !SM.getFileEntryRefForID(FID))
    return std::nullopt;
  bool Invalid = false;
  llvm::StringRef Text = SM.getBufferData(FID, &Invalid);
  if (Invalid || Offset > Text.size())
    return std::nullopt;
  return FilePoint{FID, Offset, Text};
}

std::string pathOf(const SourceManager &SM, FileID FID) {
  llvm::SmallString<256> Path(SM.getFileEntryRefForID(FID)->getName());
  SM.getFileManager().makeAbsolutePath(Path);
  llvm::sys::path::remove_dots(Path, /*remove_dot_dot=*/true);
  return std::string(Path);
}

class Rewriter {
public:
  Rewriter(ASTContext &Ctx, llvm::ArrayRef<const VarDecl *> SharedVars)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), SharedVars(SharedVars) {}

  void sharedConstructor(const ReportedError &E) {
    const VarDecl *VD = dyn_cast_or_null<VarDecl>(E.DeclArg);
    if (!VD)
      VD = sharedVarNamedAt(E.Loc);
    if (!VD || !VD->getParentFunctionOrMethod() || VD->hasExternalStorage())
      return;
    // Only a default construction: an initializer written out is an error for
    // nvcc too.
    if (const Expr *Init = VD->getInit()) {
      const auto *CE = dyn_cast<CXXConstructExpr>(Init->IgnoreImplicit());
      if (!CE || CE->getNumArgs() != 0 || CE->getParenOrBraceRange().isValid())
        return;
    }
    auto Begin = pointOf(SM, VD->getBeginLoc());
    auto Name = pointOf(SM, VD->getLocation());
    if (!Begin || !Name || Begin->File != Name->File ||
        Begin->Offset > Name->Offset)
      return;
    std::optional<unsigned> Shared;
    std::vector<unsigned> Static;
    rawTokens(*Begin, Name->Offset, [&](const Token &T, unsigned Offset) {
      if (!T.is(tok::raw_identifier))
        return;
      if (T.getRawIdentifier() == "__shared__")
        Shared = Offset;
      else if (T.getRawIdentifier() == "static")
        Static.push_back(Offset);
    });
    if (!Shared)
      return;
    add(*Begin, *Shared, SharedRegisterMacro, "shared-constructor",
        VD->getLocation());
    for (unsigned S : Static)
      add(*Begin, S, "      ", "shared-constructor", VD->getLocation());
  }

  void attributePosition(const ReportedError &E) {
    if (E.Ranges.empty())
      return;
    CharSourceRange R = E.Ranges.front();
    auto AttrBegin = pointOf(SM, R.getBegin());
    SourceLocation EndLoc =
        R.isTokenRange()
            ? Lexer::getLocForEndOfToken(SM.getExpansionLoc(R.getEnd()), 0, SM,
                                         Ctx.getLangOpts())
            : R.getEnd();
    auto AttrEnd = pointOf(SM, EndLoc);
    if (!AttrBegin || !AttrEnd || AttrBegin->File != AttrEnd->File ||
        AttrEnd->Offset <= AttrBegin->Offset)
      return;
    llvm::StringRef Attr =
        AttrBegin->Text.slice(AttrBegin->Offset, AttrEnd->Offset);
    if (!Attr.starts_with("alignas") && !Attr.starts_with("[["))
      return;
    for (const VarDecl *VD : SharedVars) {
      auto Begin = pointOf(SM, VD->getBeginLoc());
      auto Name = pointOf(SM, VD->getLocation());
      if (!Begin || !Name || Begin->File != AttrBegin->File ||
          Name->File != AttrBegin->File || Begin->Offset >= AttrBegin->Offset ||
          AttrEnd->Offset > Name->Offset)
        continue;
      llvm::StringRef Prefix =
          Begin->Text.slice(Begin->Offset, AttrBegin->Offset);
      llvm::StringRef Kept = Prefix.rtrim();
      // nvcc accepts the attribute right after a leading `__shared__` only
      // (after `static __shared__` or `extern __shared__` it says "attribute
      // does not apply to any entity").
      if (Kept != "__shared__" || Kept.size() == Prefix.size())
        return;
      std::string New = Attr.str() + " " + Kept.str();
      New.resize(Prefix.size() + Attr.size(), ' ');
      add(*Begin, Begin->Offset, New, "attribute-position", VD->getLocation());
      return;
    }
  }

  void deviceLaunch(const ReportedError &E) {
    // A __global__ function (or the host-side launch configuration call) named
    // in device code.
    if (E.IntArgs.size() < 4 || !(E.IntArgs[3] == 0 || E.IntArgs[3] == 1))
      return;
    const bool Kernel = E.IntArgs[0] == 1;
    const bool Configure =
        E.IntArgs[0] == 2 && E.DeclArg &&
        E.DeclArg->getName() == "__cudaPushCallConfiguration";
    if (!Kernel && !Configure)
      return;
    (void)launchAt(E, Kernel ? dyn_cast_or_null<FunctionDecl>(E.DeclArg)
                             : nullptr);
  }

  /// A kernel template launched from device code: Clang finds no viable
  /// candidate (it may not call a __global__ function there); the candidate its
  /// notes name is the specialization. A kernel template launched from device
  /// code: Clang finds no viable candidate (it may not call a __global__
  /// function there). Outside a template instantiation the callee, as written,
  /// names one specialization.
  void deviceLaunchOfTemplate(const ReportedError &E) {
    const bool Launch = launchAt(E, nullptr, /*OnlyAtLaunch=*/true,
                                 /*NameAsWritten=*/!E.InInstantiation);
    // Inside an instantiation the callee is written with the enclosing
    // template's parameters: nothing names the specialization from outside.
    // Said, not hidden (an empty edit that parseUnit turns into a warning).
    if (E.InInstantiation && Launch) {
      TextEdit W;
      W.File = pathOf(SM, SM.getFileID(SM.getExpansionLoc(E.Loc)));
      W.Offset = SM.getFileOffset(SM.getExpansionLoc(E.Loc));
      W.What.Loc = matchers::toSourcePos(SM, E.Loc);
      W.What.Rule = UninstantiatedLaunchRule;
      Edits.push_back(std::move(W));
    }
  }

  /// Rewrites the launch at \p E; false when there is none there.
  bool launchAt(const ReportedError &E, const FunctionDecl *Callee,
                bool OnlyAtLaunch = false, bool NameAsWritten = false) {
    auto P = pointOf(SM, E.Loc);
    if (!P)
      return false;
    llvm::StringRef T = P->Text;
    // The launch's `<<<`: at the error, or after the kernel's (template) name.
    std::optional<unsigned> Open, Close;
    int Angle = 0;
    bool Stop = false;
    rawTokens(*P, T.size(), [&](const Token &Tok, unsigned Offset) {
      if (Stop || Open)
        return;
      if (Tok.is(tok::lesslessless) && Angle == 0)
        Open = Offset;
      else if (Tok.is(tok::less))
        ++Angle;
      else if (Tok.is(tok::greater))
        --Angle;
      else if (Tok.isOneOf(tok::semi, tok::l_brace, tok::r_brace, tok::l_paren))
        Stop = true;
    });
    if (!Open || (OnlyAtLaunch && P->Offset > *Open))
      return false;
    int Depth = 0;
    bool Done = false;
    FilePoint After{P->File, *Open + 3, T};
    rawTokens(After, T.size(), [&](const Token &Tok, unsigned Offset) {
      if (Done)
        return;
      if (Tok.isOneOf(tok::l_paren, tok::l_square, tok::l_brace))
        ++Depth;
      else if (Tok.isOneOf(tok::r_paren, tok::r_square, tok::r_brace))
        --Depth;
      else if (Tok.is(tok::greatergreatergreater) && Depth == 0) {
        Close = Offset;
        Done = true;
      } else if (Tok.is(tok::semi))
        Done = true;
      if (Depth < 0)
        Done = true;
    });
    if (!Close || T.substr(*Close + 3).ltrim().empty() ||
        T.substr(*Close + 3).ltrim()[0] != '(')
      return false;
    // The callee starts at the name (with its qualifier) before the error, or
    // before `<<<`.
    unsigned Start = std::min(P->Offset, *Open);
    if (Start == *Open) {
      while (Start > 0 && isspace(static_cast<unsigned char>(T[Start - 1])))
        --Start;
      if (Start > 0 && T[Start - 1] == '>') { // template arguments
        int Level = 0;
        while (Start > 0) {
          char C = T[--Start];
          if (C == '>')
            ++Level;
          else if (C == '<' && --Level == 0)
            break;
        }
      }
    }
    while (Start > 0 && (isalnum(static_cast<unsigned char>(T[Start - 1])) ||
                         T[Start - 1] == '_' || T[Start - 1] == ':'))
      --Start;
    if (Start >= *Open)
      return false;
    add(*P, Start, "(" + std::string(*Open + 3 - Start - 1, ' '),
        "device-launch", E.Loc);
    add(*P, *Close, "), ", "device-launch", E.Loc);
    // A kernel template's specialization launched only from device code would
    // then not be instantiated: host code at the end of the unit takes its
    // address instead (nothing before it moves).
    std::string Name;
    if (Callee && Callee->isTemplateInstantiation()) {
      PrintingPolicy Policy = Ctx.getPrintingPolicy();
      Policy.SuppressUnwrittenScope = true;
      Policy.SuppressTagKeyword = true;
      llvm::raw_string_ostream OS(Name);
      OS << "::";
      Callee->getNameForDiagnostic(OS, Policy, /*Qualified=*/true);
    } else if (NameAsWritten) {
      Name = T.slice(Start, *Open).trim().str();
    }
    FileID Main = SM.getMainFileID();
    bool Invalid = false;
    llvm::StringRef MainText = SM.getBufferData(Main, &Invalid);
    if (!Name.empty() && !Invalid &&
        Name.find_first_of("(\n") == std::string::npos)
      append(Main, MainText,
             "\nstatic __attribute__((unused)) void " +
                 std::string(AppendedPrefix) + std::to_string(++Appended) +
                 "() { (void)&" + Name + "; }\n",
             E.Loc);
    return true;
  }

  void missingTypename(const ReportedError &E) {
    auto P = pointOf(SM, E.Loc);
    if (!P || SM.getExpansionLoc(E.Loc) != SM.getSpellingLoc(E.Loc))
      return; // in a macro's expansion: not a place to write in
    // Only before a qualified name written there (`T::member_type`).
    llvm::StringRef Rest = P->Text.substr(P->Offset);
    size_t Name = 0;
    while (Name < Rest.size() &&
           (isalnum(static_cast<unsigned char>(Rest[Name])) || Rest[Name] == '_'))
      ++Name;
    if (Name == 0 || !Rest.substr(Name).ltrim().starts_with("::"))
      return;
    add(*P, P->Offset, "typename ", "missing-typename", E.Loc, /*Insert=*/true);
  }

  void macroPragma(const ReportedError &E) {
    if (!E.Loc.isMacroID())
      return;
    SourceLocation Spelling = SM.getSpellingLoc(E.Loc);
    auto [FID, Offset] = SM.getDecomposedLoc(Spelling);
    if (FID.isInvalid() || !SM.getFileEntryRefForID(FID))
      return;
    bool Invalid = false;
    llvm::StringRef Text = SM.getBufferData(FID, &Invalid);
    if (Invalid || Offset >= Text.size())
      return;
    // `#pragma <rest of the definition's line>`, inside a #define.
    llvm::StringRef At = Text.substr(Offset);
    if (!At.starts_with("#"))
      return;
    llvm::StringRef AfterHash = At.drop_front().ltrim(" \t");
    if (!AfterHash.starts_with("pragma"))
      return;
    size_t LineStart = Text.rfind('\n', Offset);
    LineStart = LineStart == llvm::StringRef::npos ? 0 : LineStart + 1;
    if (!Text.slice(LineStart, Offset).ltrim().starts_with("#"))
      return;
    const size_t End = std::min(At.find_first_of("\r\n"), At.size());
    llvm::StringRef Body = At.take_front(End).rtrim();
    llvm::StringRef Pragma = AfterHash.drop_front(6).take_front(
        Body.size() - (AfterHash.data() + 6 - At.data()));
    std::string Escaped;
    for (char C : Pragma.trim()) {
      if (C == '"' || C == '\\')
        Escaped += '\\';
      Escaped += C;
    }
    FilePoint P{FID, static_cast<unsigned>(Offset), Text};
    add(P, Offset, "_Pragma(\"" + Escaped + "\")", "macro-pragma", E.Loc,
        /*Insert=*/false, Body.size());
  }

  void asmOperandNumber(const ReportedError &E) {
    auto P = pointOf(SM, E.Loc);
    if (!P || SM.getExpansionLoc(E.Loc) != SM.getSpellingLoc(E.Loc))
      return;
    llvm::StringRef T = P->Text;
    unsigned Start = P->Offset, End = P->Offset;
    while (Start > 0 && isdigit(static_cast<unsigned char>(T[Start - 1])))
      --Start;
    while (End < T.size() && isdigit(static_cast<unsigned char>(T[End])))
      ++End;
    // `%8`, or `%h8` with an operand modifier.
    unsigned Percent = Start;
    if (Percent > 0 && isalpha(static_cast<unsigned char>(T[Percent - 1])))
      --Percent;
    if (End == Start || Percent == 0 || T[Percent - 1] != '%')
      return;
    add(*P, Start, std::string(End - Start, '0'), "asm-operand-number",
        E.Loc);
  }

  void asmPercent(const ReportedError &E) {
    auto P = pointOf(SM, E.Loc);
    if (!P)
      return;
    for (unsigned Back = 0; Back <= 2 && Back <= P->Offset; ++Back)
      if (P->Text[P->Offset - Back] == '%') {
        add(*P, P->Offset - Back, " ", "asm-percent", E.Loc);
        return;
      }
  }

  void asmOperandComma(const ReportedError &E) {
    if (E.IntArgs.empty() || E.IntArgs[0] != tok::r_paren)
      return;
    auto P = pointOf(SM, E.Loc);
    if (!P || P->Offset == 0 || P->Text[P->Offset] != '"')
      return;
    llvm::StringRef T = P->Text;
    unsigned Blank = P->Offset - 1;
    if (!isspace(static_cast<unsigned char>(T[Blank])))
      return;
    llvm::StringRef Before = T.take_front(Blank).rtrim();
    if (!Before.ends_with(")"))
      return;
    // Inside the operands of an asm statement: an `asm (` before, with the
    // error one paren deep, and a `:` at that depth.
    const size_t From = Blank > 4096 ? Blank - 4096 : 0;
    llvm::StringRef Window = T.slice(From, Blank);
    size_t Kw = llvm::StringRef::npos;
    for (llvm::StringRef K : {"asm", "__asm__", "__asm"}) {
      size_t At = Window.rfind(K);
      while (At != llvm::StringRef::npos &&
             ((At > 0 && (isalnum(static_cast<unsigned char>(Window[At - 1])) ||
                          Window[At - 1] == '_')) ||
              (At + K.size() < Window.size() &&
               (isalnum(static_cast<unsigned char>(Window[At + K.size()])) ||
                Window[At + K.size()] == '_'))))
        At = At == 0 ? llvm::StringRef::npos : Window.take_front(At).rfind(K);
      if (At != llvm::StringRef::npos &&
          (Kw == llvm::StringRef::npos || At > Kw))
        Kw = At;
    }
    if (Kw == llvm::StringRef::npos)
      return;
    size_t Paren = Window.find('(', Kw);
    if (Paren == llvm::StringRef::npos)
      return;
    int Depth = 0;
    bool Colon = false, InString = false;
    for (size_t I = Paren; I < Window.size(); ++I) {
      char C = Window[I];
      if (InString) {
        if (C == '\\')
          ++I;
        else if (C == '"')
          InString = false;
        continue;
      }
      if (C == '"')
        InString = true;
      else if (C == '(')
        ++Depth;
      else if (C == ')')
        --Depth;
      else if (C == ':' && Depth == 1)
        Colon = true;
      if (Depth <= 0)
        return;
    }
    if (Depth != 1 || !Colon)
      return;
    add(*P, Blank, ",", "asm-operand-comma", E.Loc);
  }

  std::vector<TextEdit> take() { return std::move(Edits); }

private:
  /// The unit's `__shared__` variable whose name is at \p Loc.
  const VarDecl *sharedVarNamedAt(SourceLocation Loc) const {
    const SourceLocation At = SM.getExpansionLoc(Loc);
    for (const VarDecl *VD : SharedVars)
      if (SM.getExpansionLoc(VD->getLocation()) == At)
        return VD;
    return nullptr;
  }

  /// Calls \p Visit(token, offset) for each raw token from \p From up to offset
  /// \p To.
  template <typename Fn>
  void rawTokens(const FilePoint &From, unsigned To, Fn Visit) const {
    Lexer L(SM.getLocForStartOfFile(From.File), Ctx.getLangOpts(),
            From.Text.begin(), From.Text.begin() + From.Offset,
            From.Text.end());
    Token Tok;
    while (!L.LexFromRawLexer(Tok) || Tok.isNot(tok::eof)) {
      if (Tok.is(tok::eof))
        break;
      unsigned Offset = SM.getFileOffset(Tok.getLocation());
      if (Offset >= To)
        break;
      Visit(Tok, Offset);
    }
  }

  void append(FileID File, llvm::StringRef Text, std::string Lines,
              SourceLocation Where) {
    TextEdit E;
    E.File = pathOf(SM, File);
    E.Offset = static_cast<unsigned>(Text.size());
    E.Length = 0;
    E.Replacement = std::move(Lines);
    E.What.Loc = matchers::toSourcePos(SM, Where);
    E.What.Rule = "device-launch";
    Edits.push_back(std::move(E));
  }

  /// Replaces as many characters at \p Offset as \p Replacement has (so that
  /// nothing else moves), or inserts it (\p Insert), or replaces \p Length
  /// characters where given.
  void add(const FilePoint &P, unsigned Offset, std::string Replacement,
           const char *Rule, SourceLocation Where, bool Insert = false,
           std::optional<size_t> Length = std::nullopt) {
    const size_t Replaced =
        Insert ? 0 : Length.value_or(Replacement.size());
    if (Offset + Replaced > P.Text.size())
      return;
    TextEdit E;
    E.File = pathOf(SM, P.File);
    E.Offset = Offset;
    E.Length = static_cast<unsigned>(Replaced);
    E.Replacement = std::move(Replacement);
    E.What.Loc = matchers::toSourcePos(SM, Where);
    E.What.Rule = Rule;
    if (Seen.insert({E.File, E.Offset}).second)
      Edits.push_back(std::move(E));
  }

  ASTContext &Ctx;
  const SourceManager &SM;
  llvm::ArrayRef<const VarDecl *> SharedVars;
  std::vector<TextEdit> Edits;
  std::set<std::pair<std::string, unsigned>> Seen;
  unsigned Appended = 0;
};

} // namespace

const char *const AppendedPrefix = "__tilefit_device_launch_";
const char *const SharedRegisterMacro = "__tf_rsh__";
const char *const SharedRegisterDefinition = "register __attribute__((shared))";
const char *const UninstantiatedLaunchRule =
    "device-launch-of-a-template-specialization";

std::vector<TextEdit> sourceFixups(ASTContext &Ctx,
                                   llvm::ArrayRef<ReportedError> Errors,
                                   llvm::ArrayRef<const VarDecl *> SharedVars,
                                   bool Relocatable) {
  Rewriter R(Ctx, SharedVars);
  for (const ReportedError &E : Errors) {
    switch (E.ID) {
    case diag::err_shared_var_init:
      R.sharedConstructor(E);
      break;
    case diag::err_attributes_not_allowed:
      R.attributePosition(E);
      break;
    case diag::err_ref_bad_target:
      if (Relocatable)
        R.deviceLaunch(E);
      break;
    case diag::err_ovl_no_viable_function_in_call:
      if (Relocatable)
        R.deviceLaunchOfTemplate(E);
      break;
    case diag::err_typename_missing:
      R.missingTypename(E);
      break;
    case diag::err_expected_expression:
      R.macroPragma(E);
      break;
    case diag::err_asm_invalid_operand_number:
      R.asmOperandNumber(E);
      break;
    case diag::err_asm_invalid_escape:
      R.asmPercent(E);
      break;
    case diag::err_expected:
      R.asmOperandComma(E);
      break;
    default:
      break;
    }
  }
  return R.take();
}

std::string applyEdits(std::string Text, std::vector<TextEdit> Edits) {
  std::stable_sort(
      Edits.begin(), Edits.end(),
      [](const TextEdit &A, const TextEdit &B) { return A.Offset < B.Offset; });
  // Back to front, so that an addition at the end moves no earlier offset.
  size_t Covered = 0;
  std::vector<const TextEdit *> Kept;
  for (const TextEdit &E : Edits) {
    if (E.Offset < Covered || E.Offset + E.Length > Text.size())
      continue;
    Kept.push_back(&E);
    Covered = E.Offset + E.Length;
  }
  for (auto It = Kept.rbegin(); It != Kept.rend(); ++It)
    Text.replace((*It)->Offset, (*It)->Length, (*It)->Replacement);
  return Text;
}

std::map<std::string, std::vector<TextEdit>>
editsByFile(const std::vector<TextEdit> &Edits) {
  std::map<std::string, std::vector<TextEdit>> By;
  for (const TextEdit &E : Edits)
    By[E.File].push_back(E);
  return By;
}

} // namespace frontend
} // namespace tilefit
