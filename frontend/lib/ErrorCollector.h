//===- ErrorCollector.h - Clang's errors as tilefit's ------------*- C++ -*-===//
//
// What a parse's errors become: tilefit diagnostics, the errors the analysis of
// a unit with errors needs (ParseErrors.h), and those the source fix-ups read
// (SourceFixups.h). One per parse (ParseUnit.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_FRONTEND_ERRORCOLLECTOR_H
#define TILEFIT_FRONTEND_ERRORCOLLECTOR_H

#include "SourceFixups.h"

#include "tilefit/matchers/ParseErrors.h"
#include "tilefit/matchers/SourcePosition.h"
#include "tilefit/model/Checks.h"
#include "tilefit/model/Facts.h"

#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/DiagnosticSema.h"
#include "clang/Sema/Sema.h"
#include "llvm/ADT/SmallString.h"

#include <vector>

namespace tilefit {
namespace frontend {

/// Collects Clang's errors (and the notes that follow them) as tilefit
/// diagnostics, and for each error what the analysis of a unit with errors
/// needs: where it is, which template specializations Sema was instantiating
/// (ParseErrors.h), and what a source fix-up needs (SourceFixups.h). Warnings
/// are not tilefit's business.
class ErrorCollector : public clang::DiagnosticConsumer {
public:
  explicit ErrorCollector(std::vector<Diagnostic> &Out) : Out(Out) {}

  /// The parse's Sema, once it exists: errors reported during template
  /// instantiation are then attributed to the specializations being
  /// instantiated.
  void setSema(const clang::Sema *S) { Sema = S; }

  void HandleDiagnostic(clang::DiagnosticsEngine::Level Level,
                        const clang::Diagnostic &Info) override {
    clang::DiagnosticConsumer::HandleDiagnostic(Level, Info);
    llvm::SmallString<256> Msg;
    Info.FormatDiagnostic(Msg);
    SourcePos Pos;
    if (Info.hasSourceManager() && Info.getLocation().isValid())
      Pos = matchers::toSourcePos(Info.getSourceManager(), Info.getLocation());
    if (Level == clang::DiagnosticsEngine::Note) {
      if (InError && !Out.empty())
        Out.back().Notes.push_back({std::string(Msg), Pos});
      return;
    }
    InError = Level >= clang::DiagnosticsEngine::Error;
    if (!InError)
      return;
    Stopped |= Level == clang::DiagnosticsEngine::Fatal;
    Diagnostic D;
    D.Level = Severity::Error;
    D.Check = std::string(checkInfo(CheckId::ClangError).Name);
    D.Message = std::string(Msg);
    D.Loc = Pos;
    Out.push_back(std::move(D));

    matchers::ParseError E;
    E.Loc = Info.getLocation();
    E.Diagnostic = Out.size() - 1;
    E.Fatal = Level == clang::DiagnosticsEngine::Fatal;
    if (Sema)
      for (const clang::Sema::CodeSynthesisContext &C :
           Sema->CodeSynthesisContexts)
        if (C.Kind ==
                clang::Sema::CodeSynthesisContext::TemplateInstantiation &&
            C.Entity &&
            (llvm::isa<clang::FunctionDecl>(C.Entity) ||
             llvm::isa<clang::RecordDecl>(C.Entity)))
          E.Instantiating.push_back(C.Entity->getCanonicalDecl());
    ReportedError R;
    R.ID = Info.getID();
    R.Loc = Info.getLocation();
    R.InInstantiation = !E.Instantiating.empty();
    Errors.push_back(std::move(E));
    for (const clang::CharSourceRange &Range : Info.getRanges())
      R.Ranges.push_back(Range);
    for (unsigned I = 0; I < Info.getNumArgs(); ++I) {
      switch (Info.getArgKind(I)) {
      case clang::DiagnosticsEngine::ak_sint:
        R.IntArgs.push_back(Info.getArgSInt(I));
        break;
      case clang::DiagnosticsEngine::ak_uint:
        R.IntArgs.push_back(static_cast<int64_t>(Info.getArgUInt(I)));
        break;
      case clang::DiagnosticsEngine::ak_tokenkind:
        R.IntArgs.push_back(static_cast<int64_t>(Info.getRawArg(I)));
        break;
      case clang::DiagnosticsEngine::ak_nameddecl:
        R.IntArgs.push_back(0);
        if (!R.DeclArg)
          R.DeclArg =
              reinterpret_cast<const clang::NamedDecl *>(Info.getRawArg(I));
        break;
      default:
        R.IntArgs.push_back(0);
        break;
      }
    }
    // The variable a `__shared__` initialization error is about: in a template
    // instantiation whose body is then dropped, no traversal finds it later.
    if (R.ID == clang::diag::err_shared_var_init && Sema)
      for (const clang::DeclContext *DC = Sema->CurContext; DC && !R.DeclArg;
           DC = DC->getParent())
        for (const clang::Decl *D : DC->decls())
          if (const auto *VD = llvm::dyn_cast<clang::VarDecl>(D);
              VD && VD->getLocation() == Info.getLocation())
            R.DeclArg = VD;
    Reported.push_back(std::move(R));
  }

  /// Every error, for the analysis of the kernels they touch.
  const std::vector<matchers::ParseError> &errors() const { return Errors; }
  /// Every error, for the source fix-ups.
  const std::vector<ReportedError> &reported() const { return Reported; }
  /// Whether an error stopped the parse (a fatal error: a missing #include, too
  /// many errors).
  bool stopped() const { return Stopped; }

private:
  std::vector<Diagnostic> &Out;
  const clang::Sema *Sema = nullptr;
  std::vector<matchers::ParseError> Errors;
  std::vector<ReportedError> Reported;
  bool InError = false;
  bool Stopped = false;
};

} // namespace frontend
} // namespace tilefit

#endif
