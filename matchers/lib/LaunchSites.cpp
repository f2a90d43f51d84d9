//===- LaunchSites.cpp - Finding launches and opt-ins ---------------------===//
//
// Finds the unit's kernel launches (`<<<>>>`, cudaLaunchKernel and its
// cooperative and Ex variants) and cudaFuncSetAttribute calls in host code,
// ties each to the kernel it concerns, and reads its sizes with a
// LaunchEvaluator (LaunchEvaluator.h). Where a size depends on a parameter of
// the enclosing function (a launch helper), the launch is read again at each
// call of that function in the unit. Also: the sizes users state in a
// `// tilefit-dynamic-smem` comment, launches in branches that cannot run,
// and __launch_bounds__.
//
//===----------------------------------------------------------------------===//
#include "tilefit/matchers/LaunchSites.h"

#include "LaunchEvaluator.h"

#include "tilefit/matchers/KernelNames.h"
#include "tilefit/matchers/SourcePosition.h"
#include "tilefit/matchers/WrittenSource.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/DenseMap.h"

#include <cstdint>
#include <tuple>

using namespace clang;
using namespace clang::ast_matchers;

namespace tilefit {
namespace matchers {

/// Which function each launch or call of the unit's own code is in: one walk
/// over the functions outside system headers (forCallable would build the
/// parent map of the whole unit, CUB's headers and all, at the first launch).
class LaunchCollector::FunctionIndex
    : public RecursiveASTVisitor<FunctionIndex> {
public:
  explicit FunctionIndex(ASTContext &Ctx) : SM(Ctx.getSourceManager()) {
    for (Decl *D : Ctx.getTraversalScope())
      TraverseDecl(D);
  }

  bool shouldVisitTemplateInstantiations() const { return true; }

  bool TraverseDecl(Decl *D) {
    if (!D)
      return true;
    // Namespaces and linkage specifications open anywhere; other declarations
    // of system headers hold no launch tilefit reports.
    if (!isa<TranslationUnitDecl, NamespaceDecl, LinkageSpecDecl>(D) &&
        SM.isInSystemHeader(SM.getExpansionLoc(D->getLocation())))
      return true;
    // A template pattern's code holds no launch run() keeps and no call site
    // CallsTo records; the template's specializations are visited.
    if (!isa<TemplateDecl>(D) && D->isTemplated())
      return true;
    const auto *FD = dyn_cast<FunctionDecl>(D);
    if (FD && FD->doesThisDeclarationHaveABody())
      Open.push_back(FD);
    bool Ok = RecursiveASTVisitor::TraverseDecl(D);
    if (FD && FD->doesThisDeclarationHaveABody())
      Open.pop_back();
    return Ok;
  }

  bool TraverseLambdaExpr(LambdaExpr *E) {
    Open.push_back(E->getCallOperator());
    bool Ok = RecursiveASTVisitor::TraverseLambdaExpr(E);
    Open.pop_back();
    return Ok;
  }

  bool VisitCallExpr(CallExpr *E) {
    if (Open.empty())
      return true;
    Of[E] = Open.back();
    // The calls a launch helper's call sites are found among: made from code
    // that is not a template pattern, to a function (not an operator).
    if (const FunctionDecl *Callee = E->getDirectCallee();
        Callee && !isa<CXXOperatorCallExpr>(E) && !Open.back()->isTemplated())
      CallsTo[Callee->getCanonicalDecl()].push_back(E);
    return true;
  }

  const FunctionDecl *of(const Stmt *S) const { return Of.lookup(S); }
  llvm::ArrayRef<const CallExpr *> callsTo(const FunctionDecl *F) const {
    auto It = CallsTo.find(F->getCanonicalDecl());
    return It == CallsTo.end() ? llvm::ArrayRef<const CallExpr *>()
                               : It->second;
  }

private:
  const SourceManager &SM;
  std::vector<const FunctionDecl *> Open;
  llvm::DenseMap<const Stmt *, const FunctionDecl *> Of;
  llvm::DenseMap<const FunctionDecl *, llvm::SmallVector<const CallExpr *, 2>>
      CallsTo;
};

LaunchCollector::LaunchCollector() = default;
LaunchCollector::~LaunchCollector() = default;

const FunctionDecl *LaunchCollector::enclosingFunction(ASTContext &Ctx,
                                                       const Stmt *Call) {
  if (!Index)
    Index = std::make_unique<FunctionIndex>(Ctx);
  return Index->of(Call);
}

llvm::ArrayRef<const CallExpr *>
LaunchCollector::callsTo(ASTContext &Ctx, const FunctionDecl *F) {
  if (!Index)
    Index = std::make_unique<FunctionIndex>(Ctx);
  return Index->callsTo(F);
}

void LaunchCollector::registerMatchers(MatchFinder &Finder) {
  // Launches and calls in the project's own code (not in system headers such as
  // CUB's dispatch layers); run() keeps those in functions that are not
  // template patterns: instantiations are visited with their concrete
  // arguments.
  auto InUserCode = unless(isExpansionInSystemHeader());
  Finder.addMatcher(cudaKernelCallExpr(InUserCode).bind("chevron"), this);
  Finder.addMatcher(
      callExpr(callee(functionDecl(hasAnyName(
                   "::cudaLaunchKernel", "::cudaLaunchCooperativeKernel",
                   "::cudaLaunchKernelEx", "::cudaLaunchKernelExC"))),
               InUserCode)
          .bind("api"),
      this);
  Finder.addMatcher(
      callExpr(callee(functionDecl(hasName("::cudaFuncSetAttribute"))),
               InUserCode)
          .bind("attribute"),
      this);
}

/// Whether \p Target sits in a branch of \p Fn that never runs: under an `if`
/// whose condition is a constant there (`if (smem_size >= (48 << 10))` with
/// smem_size a constant of the instantiation), on the side the condition does
/// not take.

std::optional<uint64_t> parseStatedDynamicSize(llvm::StringRef Line) {
  static constexpr llvm::StringLiteral Marker = "tilefit-dynamic-smem:";
  size_t At = Line.find(Marker);
  if (At == llvm::StringRef::npos)
    return std::nullopt;
  // Only in a comment: `//` or `/*` before the marker on the line.
  size_t Slash = Line.substr(0, At).find("//");
  if (Slash == llvm::StringRef::npos)
    Slash = Line.substr(0, At).find("/*");
  if (Slash == llvm::StringRef::npos)
    return std::nullopt;
  llvm::StringRef Rest = Line.substr(At + Marker.size()).ltrim();
  llvm::StringRef Digits = Rest.take_while(llvm::isDigit);
  uint64_t Value = 0;
  if (Digits.empty() || Digits.getAsInteger(10, Value))
    return std::nullopt;
  llvm::StringRef Unit = Rest.drop_front(Digits.size()).ltrim();
  uint64_t Scale = 1;
  if (Unit.starts_with("KiB"))
    Scale = 1024;
  else if (Unit.starts_with("MiB"))
    Scale = 1024 * 1024;
  if (Value > UINT64_MAX / Scale)
    return std::nullopt;
  return Value * Scale;
}

/// The size a `// tilefit-dynamic-smem: N` comment states for the launch at
/// \p Loc: on its line, or alone on the line above it.
static std::optional<uint64_t> statedDynamicSize(const SourceManager &SM,
                                                 SourceLocation Loc) {
  Loc = SM.getExpansionLoc(Loc);
  if (Loc.isInvalid())
    return std::nullopt;
  auto [File, Offset] = SM.getDecomposedLoc(Loc);
  bool Invalid = false;
  llvm::StringRef Buffer = SM.getBufferData(File, &Invalid);
  if (Invalid || Offset > Buffer.size())
    return std::nullopt;
  const size_t Newline =
      Offset ? Buffer.rfind('\n', Offset - 1) : llvm::StringRef::npos;
  const size_t Start = Newline == llvm::StringRef::npos ? 0 : Newline + 1;
  size_t End = Buffer.find('\n', Offset);
  llvm::StringRef Line = Buffer.slice(Start, End);
  if (auto V = parseStatedDynamicSize(Line))
    return V;
  if (Start == 0)
    return std::nullopt;
  size_t PrevStart = Buffer.rfind('\n', Start - 1);
  PrevStart = PrevStart == llvm::StringRef::npos ? 0 : PrevStart + 1;
  llvm::StringRef Prev = Buffer.slice(PrevStart, Start - 1).trim();
  if (Prev.starts_with("//") || Prev.starts_with("/*"))
    return parseStatedDynamicSize(Prev);
  return std::nullopt;
}

/// Whether \p Target sits in a branch of \p Fn that never runs: under an `if`
/// whose condition is a constant there (`if (smem_size >= (48 << 10))` with
/// smem_size a constant of the instantiation, or a parameter a call site binds
/// to one), on the side the condition does not take.
static bool inDeadBranch(const Stmt *Target, const FunctionDecl *Fn,
                         LaunchEvaluator &Eval) {
  struct Path : RecursiveASTVisitor<Path> {
    const Stmt *Target;
    std::vector<std::pair<const IfStmt *, bool>> Open, Found;
    bool Done = false;
    bool TraverseIfStmt(IfStmt *If) {
      if (Done)
        return false;
      if (If->getInit() && !TraverseStmt(If->getInit()))
        return false;
      if (!TraverseStmt(If->getCond()))
        return false;
      for (bool Then : {true, false}) {
        Stmt *Branch = Then ? If->getThen() : If->getElse();
        if (!Branch)
          continue;
        Open.push_back({If, Then});
        bool Ok = TraverseStmt(Branch);
        Open.pop_back();
        if (!Ok)
          return false;
      }
      return true;
    }
    bool VisitStmt(Stmt *S) {
      if (S == Target) {
        Found = Open;
        Done = true;
        return false;
      }
      return true;
    }
  } P;
  P.Target = Target;
  if (!Fn || !Fn->getBody())
    return false;
  P.TraverseStmt(Fn->getBody());
  for (const auto &[If, Then] : P.Found) {
    if (If->isConsteval())
      continue;
    if (auto C = Eval.condition(If->getCond()); C && (*C != 0) != Then)
      return true;
  }
  return false;
}

namespace {

/// What one launch or opt-in reads as with an evaluator's bindings.
struct Reading {
  bool Ignore =
      false; ///< Nothing to record (an attribute tilefit does not read, ...).
  bool Attribute = false; ///< A cudaFuncSetAttribute call, not a launch.
  const FunctionDecl *Kernel = nullptr;
  LaunchSite L;
  AttributeCall A;
  const Expr *KernelArg = nullptr; ///< The kernel as the launch writes it.
  /// What is not known depends on a parameter of the outermost function: its
  /// call sites may tell it.
  bool NeedsCaller = false;
};

std::string sourceText(ASTContext &Ctx, const Expr *E) {
  CharSourceRange Range =
      CharSourceRange::getTokenRange(E->IgnoreImplicit()->getSourceRange());
  std::string Text =
      Lexer::getSourceText(Range, Ctx.getSourceManager(), Ctx.getLangOpts())
          .str();
  return Text.empty() ? std::string("?") : Text;
}

bool samePlace(const SourcePos &A, const SourcePos &B) {
  return A.File == B.File && A.Line == B.Line && A.Column == B.Column;
}

/// A launch at \p Loc whose kernel \p GivenUp could not be told statically;
/// its helper named where \p GivenUp is a parameter of one (the kernel is then
/// its caller's).
LostLaunch unresolvedLaunch(ASTContext &Ctx, SourcePos Loc,
                            const Expr *GivenUp) {
  LostLaunch L{std::move(Loc), sourceText(Ctx, GivenUp), /*Unresolved=*/true,
               ""};
  const Expr *Bare = GivenUp->IgnoreParenImpCasts();
  while (const auto *Cast = dyn_cast<ExplicitCastExpr>(Bare))
    Bare = Cast->getSubExpr()->IgnoreParenImpCasts();
  if (const auto *Ref = dyn_cast<DeclRefExpr>(Bare))
    if (const auto *P = dyn_cast<ParmVarDecl>(Ref->getDecl()))
      if (const auto *F = dyn_cast_or_null<FunctionDecl>(P->getDeclContext()))
        L.Helper = F->getQualifiedNameAsString();
  return L;
}

/// Reads the launch or attribute call \p Matched with \p Eval.
Reading read(ASTContext &Ctx, const Stmt *Matched, LaunchEvaluator &Eval) {
  const SourceManager &SM = Ctx.getSourceManager();
  LaunchEvaluator &Top = Eval.top();
  Reading R;
  // The kernel first, then the values: which of them needs a caller.
  auto Kernel = [&](const Expr *E) {
    Top.ReachedParameter = false;
    Top.KernelGivenUp = nullptr;
    R.KernelArg = E;
    R.Kernel = Eval.kernel(E);
    const bool KernelNeeds = Top.ReachedParameter;
    Top.ReachedParameter = false;
    return KernelNeeds;
  };
  if (const auto *Call = dyn_cast<CUDAKernelCallExpr>(Matched)) {
    R.L.Form = "<<<>>>";
    R.L.Loc = toSourcePos(SM, Call->getBeginLoc());
    const CallExpr *Config = Call->getConfig();
    bool KernelNeeds = false;
    if (const FunctionDecl *Direct = Call->getDirectCallee())
      R.Kernel = Direct, R.KernelArg = Call->getCallee();
    else
      KernelNeeds = Kernel(Call->getCallee());
    if (!Config || Config->getNumArgs() < 2 ||
        (!R.Kernel && Call->containsErrors())) {
      R.Ignore = true;
      return R;
    }
    const Expr *Bytes = Config->getNumArgs() >= 3 ? Config->getArg(2) : nullptr;
    bool Default = !Bytes || isa<CXXDefaultArgExpr>(Bytes);
    evaluateInto(Eval, Default ? nullptr : Bytes, Default, Config->getArg(1),
                 R.L);
    R.NeedsCaller =
        R.Kernel ? !R.L.DynamicBytes && Top.ReachedParameter : KernelNeeds;
    return R;
  }
  if (const auto *Call = dyn_cast<CallExpr>(Matched);
      Call && Call->getDirectCallee() &&
      Call->getDirectCallee()->getName() != "cudaFuncSetAttribute") {
    R.L.Form = Call->getDirectCallee()->getName().str();
    R.L.Loc = toSourcePos(SM, Call->getBeginLoc());
    const bool Ex =
        R.L.Form == "cudaLaunchKernelEx" || R.L.Form == "cudaLaunchKernelExC";
    const unsigned KernelIndex = Ex ? 1 : 0;
    if (Call->getNumArgs() <= KernelIndex || Call->containsErrors()) {
      R.Ignore = true;
      return R;
    }
    const bool KernelNeeds = Kernel(Call->getArg(KernelIndex));
    if (Ex) {
      evaluateConfig(Eval, Call->getArg(0), Call->getBeginLoc(), R.L);
    } else {
      // cudaLaunchKernel(func, grid, block, args, sharedMem = 0, stream = 0),
      // and the same for cudaLaunchCooperativeKernel.
      const Expr *Bytes = Call->getNumArgs() > 4 ? Call->getArg(4) : nullptr;
      bool Default = !Bytes || isa<CXXDefaultArgExpr>(Bytes);
      evaluateInto(Eval, Default ? nullptr : Bytes, Default,
                   Call->getNumArgs() > 2 ? Call->getArg(2) : nullptr, R.L);
    }
    R.NeedsCaller =
        R.Kernel ? !R.L.DynamicBytes && Top.ReachedParameter : KernelNeeds;
    return R;
  }
  const auto *Call = cast<CallExpr>(Matched);
  R.Attribute = true;
  R.Ignore = true;
  if (Call->getNumArgs() < 3)
    return R;
  R.A.Loc = toSourcePos(SM, Call->getBeginLoc());
  Expr::EvalResult Which;
  if (!Call->getArg(1)->EvaluateAsRValue(Which, Ctx) || !Which.Val.isInt())
    return R; // an attribute chosen at run time: not one tilefit reads
  // cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
  // ...PreferredSharedMemoryCarveout = 9 (driver_types.h).
  int64_t Attr = Which.Val.getInt().getSExtValue();
  if (Attr == 8)
    R.A.Attribute = AttributeCall::Kind::MaxDynamicSharedMemorySize;
  else if (Attr == 9)
    R.A.Attribute = AttributeCall::Kind::PreferredSharedMemoryCarveout;
  else
    return R;
  R.Ignore = false;
  const bool KernelNeeds = Kernel(Call->getArg(0));
  Reason Why;
  if (auto V = Eval.evaluate(Call->getArg(2), Why))
    R.A.Value = static_cast<int64_t>(*V);
  else
    R.A.UnknownReason =
        Reason::resting(ReasonKind::AttributeValueNotConstant, std::move(Why));
  // An opt-in for a kernel not known statically: no launch of it is either.
  R.NeedsCaller = R.Kernel ? !R.A.Value && Top.ReachedParameter : KernelNeeds;
  if (!R.Kernel && !R.NeedsCaller)
    R.Ignore = true;
  return R;
}

} // namespace

void LaunchCollector::run(const MatchFinder::MatchResult &Result) {
  ASTContext &Ctx = *Result.Context;
  const SourceManager &SM = Ctx.getSourceManager();
  const Stmt *Matched = nullptr;
  for (const char *Id : {"chevron", "api", "attribute"})
    if (!Matched)
      Matched = Result.Nodes.getNodeAs<Stmt>(Id);
  const FunctionDecl *Fn = Matched ? enclosingFunction(Ctx, Matched) : nullptr;
  if (!Fn || Fn->isTemplated())
    return;
  LaunchEvaluator Eval(Ctx, Fn, &ReadOnly);
  // A kernel template's launch with an error in it: which specialization it
  // launches is not decided, and none is instantiated for it.
  if (const auto *Call = dyn_cast<CUDAKernelCallExpr>(Matched);
      Call && !Call->getDirectCallee() && Call->containsErrors() &&
      !inDeadBranch(Call, Fn, Eval))
    if (const auto *Named =
            dyn_cast<OverloadExpr>(Call->getCallee()->IgnoreImplicit());
        Named && llvm::any_of(Named->decls(), [](const NamedDecl *D) {
          const auto *T =
              dyn_cast<FunctionTemplateDecl>(D->getUnderlyingDecl());
          return T && T->getTemplatedDecl()->hasAttr<CUDAGlobalAttr>();
        })) {
      CharSourceRange R =
          CharSourceRange::getTokenRange(Named->getSourceRange());
      Lost.push_back({toSourcePos(SM, Call->getBeginLoc()),
                      Lexer::getSourceText(R, SM, Ctx.getLangOpts()).str(),
                      false, ""});
      return;
    }
  follow(Ctx, Matched, Eval, Eval, nullptr, 0);
}

void LaunchCollector::follow(ASTContext &Ctx, const Stmt *Matched,
                             LaunchEvaluator &Inner, LaunchEvaluator &Top,
                             const CallExpr *At, int Depth) {
  // Code under a condition that is false here does not run: no launch, no
  // opt-in.
  if (inDeadBranch(Matched, Inner.function(), Inner))
    return;
  Reading R = read(Ctx, Matched, Inner);
  if (R.Ignore)
    return;
  if (Depth == 0)
    AtLaunch = {R.Kernel != nullptr, R.L.DynamicBytes.has_value(),
                R.L.BlockThreads.has_value(), R.A.Value.has_value()};
  // A launch helper (`ClusterLauncher::launch(grid, cluster, block, smem,
  // stream, kernel, params)`): read again at each call of the outermost
  // function, with its arguments.
  if (R.NeedsCaller && Depth < 6) {
    llvm::ArrayRef<const CallExpr *> Sites = callsTo(Ctx, Top.function());
    bool Any = false;
    for (const CallExpr *Site : Sites) {
      const FunctionDecl *Caller = enclosingFunction(Ctx, Site);
      if (!Caller || Caller->isTemplated() || Inner.onChain(Caller))
        continue;
      Any = true;
      LaunchEvaluator Outer(Ctx, Caller, &ReadOnly);
      if (inDeadBranch(Site, Caller, Outer))
        continue;
      Top.bind(Site, &Outer);
      follow(Ctx, Matched, Inner, Outer, Site, Depth + 1);
      Top.bind(nullptr, nullptr);
    }
    if (Any)
      return;
    // Nothing in this unit calls it: a helper in a header is called by the
    // units that include it, and is read there.
    const SourceManager &SM = Ctx.getSourceManager();
    if (!R.Kernel &&
        !SM.isInMainFile(SM.getExpansionLoc(Top.function()->getLocation())))
      return;
  }
  // Through a helper: at the call that told the rest, in the helper's name.
  std::string Via;
  if (At) {
    const FunctionDecl *Helper = At->getDirectCallee();
    Via = " through " +
          (Helper ? Helper->getQualifiedNameAsString() : std::string("?"));
  }
  const SourcePos Loc =
      At ? toSourcePos(Ctx.getSourceManager(), At->getBeginLoc()) : SourcePos();
  // A call that decided nothing the launch lacked (its size still unknown,
  // say, read at run time by the caller) is no place for it: the launch's own
  // line is.
  const bool Decided =
      At && ((!AtLaunch.Kernel && R.Kernel) ||
             (R.Attribute ? !AtLaunch.Value && R.A.Value.has_value()
                          : (!AtLaunch.Bytes && R.L.DynamicBytes) ||
                                (!AtLaunch.Threads && R.L.BlockThreads)));
  if (R.Attribute) {
    if (!R.Kernel)
      return; // an opt-in for a kernel not known statically: no launch of it is
              // either
    if (Decided)
      R.A.Loc = Loc;
    else if (At)
      for (const auto &[K, A] : Attributes)
        if (samePlace(A.Loc, R.A.Loc) && A.Value == R.A.Value)
          return; // the same reading through another call
    Attributes.push_back(
        {R.Kernel->getDefinition() ? R.Kernel->getDefinition() : R.Kernel,
         R.A});
    return;
  }
  if (!R.Kernel) {
    // A size of zero loses nothing.
    if (R.L.DynamicBytes && *R.L.DynamicBytes == 0)
      return;
    // At a call of a helper: the argument the kernel could not be told from.
    Unresolved.push_back(unresolvedLaunch(
        Ctx, At ? Loc : R.L.Loc,
        At && Top.KernelGivenUp ? Top.KernelGivenUp : R.KernelArg));
    return;
  }
  const FunctionDecl *Kernel =
      R.Kernel->getDefinition() ? R.Kernel->getDefinition() : R.Kernel;
  if (At && Decided) {
    R.L.Loc = Loc;
    R.L.Form += Via;
  }
  // A size tilefit cannot compute, stated by a comment where the launch is
  // reported.
  if (!R.L.DynamicBytes)
    if (auto Stated = statedDynamicSize(
            Ctx.getSourceManager(),
            At && Decided ? At->getBeginLoc() : Matched->getBeginLoc())) {
      R.L.DynamicBytes = *Stated;
      R.L.UnknownReason.clear();
      R.L.StatedBy = "comment";
    }
  if (At) {
    // The same call read through two launches of the helper (its branches) is
    // one launch; so is the launch read the same through two calls that
    // decided nothing.
    for (const auto &[K, L] : Launches)
      if (K == Kernel && samePlace(L.Loc, R.L.Loc) &&
          L.DynamicBytes == R.L.DynamicBytes &&
          L.BlockThreads == R.L.BlockThreads)
        return;
  }
  // Where the `extern __shared__` quick fix may edit it: a launch written
  // here, not read through a helper.
  if (const auto *Call = dyn_cast<CUDAKernelCallExpr>(Matched); Call && !At)
    R.L.Written = writtenLaunch(Ctx, Call, Inner.function());
  Launches.push_back({Kernel, R.L});
}

std::vector<HostKernelCalls> hostKernelCalls(ASTContext &Ctx,
                                             const LaunchCollector &Collector) {
  KernelNamer Namer(Ctx);
  std::vector<HostKernelCalls> Out;
  llvm::DenseMap<const FunctionDecl *, size_t> Index;
  auto Entry = [&](const FunctionDecl *K) -> HostKernelCalls & {
    auto [It, New] = Index.try_emplace(K, Out.size());
    if (New) {
      Out.emplace_back();
      Out.back().Mangled = Namer.mangled(K);
    }
    return Out[It->second];
  };
  for (const auto &[K, L] : Collector.Launches)
    Entry(K).Launches.push_back(L);
  for (const auto &[K, A] : Collector.Attributes)
    Entry(K).Attributes.push_back(A);
  return Out;
}

std::optional<uint64_t> evaluateConstant(ASTContext &Ctx,
                                         const FunctionDecl *Fn, const Expr *E,
                                         Reason &Why) {
  return LaunchEvaluator(Ctx, Fn).evaluate(E, Why);
}

std::optional<LaunchBounds> launchBoundsOf(const FunctionDecl *Kernel) {
  const auto *A = Kernel->getAttr<CUDALaunchBoundsAttr>();
  if (!A)
    return std::nullopt;
  const ASTContext &Ctx = Kernel->getASTContext();
  LaunchBounds B;
  B.Loc = toSourcePos(Ctx.getSourceManager(), A->getLocation());
  auto Eval = [&](const Expr *E) -> std::optional<uint64_t> {
    Expr::EvalResult R;
    if (E && !E->isValueDependent() && E->EvaluateAsInt(R, Ctx) &&
        !R.Val.getInt().isNegative())
      return R.Val.getInt().getZExtValue();
    return std::nullopt;
  };
  B.MaxThreads = Eval(A->getMaxThreads());
  B.MinBlocks = Eval(A->getMinBlocks());
  return B;
}

} // namespace matchers
} // namespace tilefit
