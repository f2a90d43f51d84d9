//===- NvccOnlyCode.cpp - Code the parse skips and nvcc compiles ----------===//
#include "NvccOnlyCode.h"

#include "tilefit/model/Checks.h"

#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Preprocessor.h"

#include <cctype>
#include <map>
#include <set>

namespace tilefit {
namespace frontend {

const std::vector<const char *> &nvccOnlyMacros() {
  static const std::vector<const char *> Names = {"__NVCC__"};
  return Names;
}

namespace {

/// The nvcc-only macro \p Condition names, or "".
std::string named(llvm::StringRef Condition) {
  for (const char *M : nvccOnlyMacros()) {
    size_t At = Condition.find(M);
    const size_t Len = llvm::StringRef(M).size();
    auto Ident = [](char C) {
      return std::isalnum(static_cast<unsigned char>(C)) || C == '_';
    };
    if (At != llvm::StringRef::npos && (At == 0 || !Ident(Condition[At - 1])) &&
        (At + Len == Condition.size() || !Ident(Condition[At + Len])))
      return M;
  }
  return "";
}

/// The nvcc-only macro of the conditional directive \p Line (`#ifdef __NVCC__`,
/// `# if defined(__NVCC__)`, `#elif ...`), or "".
std::string conditionalOn(llvm::StringRef Line) {
  Line = Line.ltrim();
  if (!Line.consume_front("#"))
    return "";
  Line = Line.ltrim();
  for (llvm::StringRef Kind : {"ifdef", "ifndef", "if", "elif"})
    if (Line.consume_front(Kind))
      return named(Line);
  return "";
}

class Watcher : public clang::PPCallbacks {
public:
  Watcher(clang::Preprocessor &PP, std::vector<Diagnostic> &Out)
      : SM(PP.getSourceManager()), LangOpts(PP.getLangOpts()), Out(Out) {}

  void If(clang::SourceLocation Loc, clang::SourceRange Condition,
          ConditionValueKind) override {
    open(Loc, text(Condition));
  }
  void Ifdef(clang::SourceLocation Loc, const clang::Token &Name,
             const clang::MacroDefinition &) override {
    open(Loc, spelling(Name));
  }
  void Ifndef(clang::SourceLocation Loc, const clang::Token &Name,
              const clang::MacroDefinition &) override {
    open(Loc, spelling(Name));
  }
  void Elif(clang::SourceLocation Loc, clang::SourceRange Condition,
            ConditionValueKind, clang::SourceLocation IfLoc) override {
    follow(Loc, IfLoc, text(Condition));
  }
  void Else(clang::SourceLocation Loc, clang::SourceLocation IfLoc) override {
    follow(Loc, IfLoc, "");
  }
  void SourceRangeSkipped(clang::SourceRange Range,
                          clang::SourceLocation) override {
    auto It = Directives.find(lineOf(Range.getBegin()));
    if (It == Directives.end())
      return;
    const std::string Macro = It->second;
    llvm::StringRef Skipped = text(Range);
    const bool Kernel = Skipped.contains("__global__"),
               Launch = Skipped.contains("<<<");
    if (!Kernel && !Launch)
      return;
    Diagnostic D;
    D.Level = Severity::Warning;
    D.Check = std::string(checkInfo(CheckId::Input).Name);
    D.Loc = position(Range.getBegin());
    D.Message =
        std::string("this block holds ") + (Kernel ? "a kernel" : "a launch") +
        " that nvcc compiles and tilefit's parse skips: it leaves " + Macro +
        " undefined (README.md, \"Limits\"), so what the block defines or "
        "launches is "
        "not analysed";
    Out.push_back(std::move(D));
  }

private:
  using Line = std::pair<unsigned, unsigned>; // file id, line

  Line lineOf(clang::SourceLocation L) const {
    L = SM.getExpansionLoc(L);
    return {SM.getFileID(L).getHashValue(), SM.getSpellingLineNumber(L)};
  }
  SourcePos position(clang::SourceLocation L) const {
    L = SM.getExpansionLoc(L);
    SourcePos P;
    if (auto Entry = SM.getFileEntryRefForID(SM.getFileID(L)))
      P.File = Entry->getName().str();
    P.Line = SM.getSpellingLineNumber(L);
    P.Column = SM.getSpellingColumnNumber(L);
    return P;
  }
  llvm::StringRef text(clang::SourceRange R) const {
    return clang::Lexer::getSourceText(clang::CharSourceRange::getCharRange(R),
                                       SM, LangOpts);
  }
  static std::string spelling(const clang::Token &T) {
    return T.getIdentifierInfo() ? T.getIdentifierInfo()->getName().str() : "";
  }
  void open(clang::SourceLocation Loc, llvm::StringRef Condition) {
    if (SM.isInSystemHeader(SM.getExpansionLoc(Loc)))
      return;
    std::string M = named(Condition);
    if (M.empty())
      return;
    Opened[Loc.getRawEncoding()] = M;
    Directives[lineOf(Loc)] = M;
  }
  void follow(clang::SourceLocation Loc, clang::SourceLocation IfLoc,
              llvm::StringRef Condition) {
    auto It = Opened.find(IfLoc.getRawEncoding());
    std::string M = It != Opened.end() ? It->second : named(Condition);
    if (M.empty() || SM.isInSystemHeader(SM.getExpansionLoc(Loc)))
      return;
    Directives[lineOf(Loc)] = M;
  }

  const clang::SourceManager &SM;
  const clang::LangOptions &LangOpts;
  std::vector<Diagnostic> &Out;
  std::map<unsigned, std::string>
      Opened; ///< Opening directives on an nvcc-only macro.
  std::map<Line, std::string>
      Directives; ///< Their lines, and their #elif/#else lines.
};

} // namespace

namespace {

/// Skipped blocks under a directive on __CUDA_ARCH__ (its #if, #ifdef, #ifndef,
/// #elif, or the #else of one) that hold launches or attribute calls.
class SkippedCalls : public clang::PPCallbacks {
public:
  SkippedCalls(clang::Preprocessor &PP, bool &Found)
      : SM(PP.getSourceManager()), LangOpts(PP.getLangOpts()), Found(Found) {}
  void If(clang::SourceLocation Loc, clang::SourceRange Condition,
          ConditionValueKind) override {
    open(Loc, text(Condition));
  }
  void Ifdef(clang::SourceLocation Loc, const clang::Token &Name,
             const clang::MacroDefinition &) override {
    open(Loc,
         Name.getIdentifierInfo() ? Name.getIdentifierInfo()->getName() : "");
  }
  void Ifndef(clang::SourceLocation Loc, const clang::Token &Name,
              const clang::MacroDefinition &) override {
    open(Loc,
         Name.getIdentifierInfo() ? Name.getIdentifierInfo()->getName() : "");
  }
  void Elif(clang::SourceLocation Loc, clang::SourceRange Condition,
            ConditionValueKind, clang::SourceLocation IfLoc) override {
    if (Opened.count(IfLoc.getRawEncoding()) || onArch(text(Condition)))
      Lines.insert(lineOf(Loc));
  }
  void Else(clang::SourceLocation Loc, clang::SourceLocation IfLoc) override {
    if (Opened.count(IfLoc.getRawEncoding()))
      Lines.insert(lineOf(Loc));
  }
  void SourceRangeSkipped(clang::SourceRange Range,
                          clang::SourceLocation) override {
    if (Found || !Lines.count(lineOf(Range.getBegin())))
      return;
    llvm::StringRef Skipped = text(Range);
    Found = Skipped.contains("<<<") || Skipped.contains("cudaLaunch") ||
            Skipped.contains("cudaFuncSetAttribute");
  }

private:
  using Line = std::pair<unsigned, unsigned>; // file id, line
  static bool onArch(llvm::StringRef Condition) {
    return Condition.contains("__CUDA_ARCH__");
  }
  Line lineOf(clang::SourceLocation L) const {
    L = SM.getExpansionLoc(L);
    return {SM.getFileID(L).getHashValue(), SM.getSpellingLineNumber(L)};
  }
  llvm::StringRef text(clang::SourceRange R) const {
    return clang::Lexer::getSourceText(clang::CharSourceRange::getCharRange(R),
                                       SM, LangOpts);
  }
  void open(clang::SourceLocation Loc, llvm::StringRef Condition) {
    if (!onArch(Condition) || SM.isInSystemHeader(SM.getExpansionLoc(Loc)))
      return;
    Opened.insert(Loc.getRawEncoding());
    Lines.insert(lineOf(Loc));
  }

  const clang::SourceManager &SM;
  const clang::LangOptions &LangOpts;
  bool &Found;
  std::set<unsigned> Opened; ///< Opening directives on __CUDA_ARCH__.
  std::set<Line> Lines;      ///< Their lines, and their #elif/#else lines.
};

} // namespace

void watchSkippedHostCalls(clang::Preprocessor &PP, bool &Found) {
  PP.addPPCallbacks(std::make_unique<SkippedCalls>(PP, Found));
}

namespace {

/// Records the project's own conditional blocks on __CUDA_ARCH__ and the
/// skipped ranges that may hold a definition (matchers::ArchConditionals).
class ArchBlocks : public clang::PPCallbacks {
public:
  ArchBlocks(clang::Preprocessor &PP, matchers::ArchConditionals &Out,
             std::string Ignored)
      : SM(PP.getSourceManager()), LangOpts(PP.getLangOpts()), Out(Out),
        Ignored(std::move(Ignored)) {}
  void If(clang::SourceLocation Loc, clang::SourceRange Condition,
          ConditionValueKind) override {
    open(Loc, Loc, text(Condition));
  }
  void Ifdef(clang::SourceLocation Loc, const clang::Token &Name,
             const clang::MacroDefinition &) override {
    open(Loc, Loc, name(Name));
  }
  void Ifndef(clang::SourceLocation Loc, const clang::Token &Name,
              const clang::MacroDefinition &) override {
    open(Loc, Loc, name(Name));
  }
  void Elif(clang::SourceLocation Loc, clang::SourceRange Condition,
            ConditionValueKind, clang::SourceLocation IfLoc) override {
    open(IfLoc, Loc, text(Condition));
  }
  void Endif(clang::SourceLocation Loc, clang::SourceLocation IfLoc) override {
    if (Opened.count(IfLoc.getRawEncoding()))
      Out.Blocks.emplace_back(IfLoc, Loc);
  }
  void SourceRangeSkipped(clang::SourceRange Range,
                          clang::SourceLocation) override {
    if (!own(Range.getBegin()))
      return;
    // A definition has a body or an initializer. Which blocks were on
    // __CUDA_ARCH__ is known only at their #endif: KernelNamer sorts them out.
    llvm::StringRef Skipped = text(Range);
    if (Skipped.contains('{') || Skipped.contains('='))
      Out.SkippedDefinitions.push_back(Range.getBegin());
  }

private:
  static llvm::StringRef name(const clang::Token &T) {
    return T.getIdentifierInfo() ? T.getIdentifierInfo()->getName() : "";
  }
  llvm::StringRef text(clang::SourceRange R) const {
    return clang::Lexer::getSourceText(clang::CharSourceRange::getCharRange(R),
                                       SM, LangOpts);
  }
  void open(clang::SourceLocation IfLoc, clang::SourceLocation Loc,
            llvm::StringRef Condition) {
    if (Condition.contains("__CUDA_ARCH__") && own(Loc))
      Opened.insert(IfLoc.getRawEncoding());
  }
  /// Code nvcc reads too: not a system header, nor tilefit's own.
  bool own(clang::SourceLocation Loc) const {
    Loc = SM.getExpansionLoc(Loc);
    if (SM.isInSystemHeader(Loc))
      return false;
    if (Ignored.empty())
      return true;
    clang::OptionalFileEntryRef F = SM.getFileEntryRefForID(SM.getFileID(Loc));
    return !F || !F->getName().starts_with(Ignored);
  }

  const clang::SourceManager &SM;
  const clang::LangOptions &LangOpts;
  matchers::ArchConditionals &Out;
  std::string Ignored;
  std::set<unsigned> Opened; ///< Opening directives of blocks on __CUDA_ARCH__.
};

} // namespace

void watchArchConditionals(clang::Preprocessor &PP,
                           matchers::ArchConditionals &Out,
                           const std::string &Ignored) {
  PP.addPPCallbacks(std::make_unique<ArchBlocks>(PP, Out, Ignored));
}

size_t firstNvccOnlyConditional(llvm::StringRef Text) {
  size_t At = 0;
  while (At < Text.size()) {
    size_t End = Text.find('\n', At);
    llvm::StringRef Line =
        Text.slice(At, End == llvm::StringRef::npos ? Text.size() : End);
    if (!conditionalOn(Line).empty())
      return At;
    // `#ifndef __CUDA_ARCH__` too: the block it skips may hold launches
    // (SkippedCalls).
    llvm::StringRef Directive = Line.ltrim();
    if (Directive.consume_front("#") && Directive.ltrim().starts_with("if") &&
        Directive.contains("__CUDA_ARCH__"))
      return At;
    if (End == llvm::StringRef::npos)
      break;
    At = End + 1;
  }
  return llvm::StringRef::npos;
}

void watchNvccOnlyCode(clang::Preprocessor &PP, std::vector<Diagnostic> &Out) {
  PP.addPPCallbacks(std::make_unique<Watcher>(PP, Out));
}

} // namespace frontend
} // namespace tilefit
