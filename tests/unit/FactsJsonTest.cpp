//===- FactsJsonTest.cpp - Translation-unit facts to JSON and back --------===//
//
// factsToJson/factsFromJson, as the result cache uses them: facts with every
// field of every struct set to a value unlike its default come back equal,
// field by field; malformed, foreign and inconsistent documents come back as
// nothing, without an exception.
//
//===----------------------------------------------------------------------===//
#include "tilefit/model/FactsJson.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <limits>
#include <set>

namespace tilefit {
namespace {

using Json = nlohmann::json;

std::string text(const char *What, unsigned S) {
  return std::string(What) + "#" + std::to_string(S);
}

/// A reason of kind \p K with an argument, resting on another with two: each
/// part of a Reason survives the round trip.
Reason reason(ReasonKind K, unsigned S) {
  Reason R = Reason::resting(K, Reason(ReasonKind::ModuleIdSkippedEarlier,
                                       {text("k.cu:3", S), text("k.cu:9", S)}));
  R.Args = {text("n", S)};
  return R;
}

// Every field of every struct the facts hold, each with a value unlike its
// default (S varies the values between instances). A field added to Facts.h and
// FactsJson.cpp is one more line in its struct's list:
// FactsJsonTest.EveryStoredFieldIsListed fails until it is there. A new struct
// is a FIELDS_ list, a TILEFIT_STRUCT line in Fields and a where<> line in that
// test. (A field added to Facts.h but not to FactsJson.cpp is not stored, and
// no test here can tell without reflection.)
//
// Indices (Callees, Statics, EmissionEvent::Index, ErrorTouch::Diagnostic, ...)
// are 0 and 1, which the unit below keeps in range (two of each thing they
// refer to).

/// IndexExpr's node, by a name the field lists can paste.
using IndexNode = IndexExpr::Node;

#define FIELDS_SourcePos(F)                                                    \
  F(File, text("dir/k.cu", S))                                                 \
  F(Line, 12 + S)                                                              \
  F(Column, 7 + S)

#define FIELDS_WrittenLiteral(F)                                               \
  F(Loc, make<SourcePos>(S + 900))                                             \
  F(Length, 2 + S)

#define FIELDS_WrittenDeclaration(F)                                           \
  F(Span, make<WrittenLiteral>(S + 950))                                       \
  F(Indent, text("  ", S))                                                     \
  F(Element, text("float", S))                                                 \
  F(Extents, text("[TILE][TILE + 1]", S))

#define FIELDS_WrittenLaunch(F)                                                \
  F(Bytes, make<WrittenLiteral>(S + 960))                                      \
  F(Statement, make<SourcePos>(S + 970))                                       \
  F(Indent, text("    ", S))                                                   \
  F(Kernel, text("transpose<float>", S))

#define FIELDS_EmissionFacts(F)                                                \
  F(Namespaces, {3 + S, 1})                                                    \
  F(DeclOrder, (uint64_t(1) << 40) + S)

#define FIELDS_EmissionEvent(F)                                                \
  F(K, EmissionEvent::Kind::Instantiate)                                       \
  F(Index, 1)

#define FIELDS_EmissionFunction(F)                                             \
  F(Name, text("f<64>", S))                                                    \
  F(IsTemplateInstance, true)                                                  \
  F(ReturnsAuto, true)                                                         \
  F(Nested, true)                                                              \
  F(ContainsLambda, true)                                                      \
  F(InsideLambda, true)                                                        \
  F(Body, {make<EmissionEvent>(S), {EmissionEvent::Kind::Variable, 1}})        \
  F(Statics, {1, 0})

#define FIELDS_EmissionProgram(F)                                              \
  F(Functions, {make<EmissionFunction>(S), make<EmissionFunction>(S + 1)})     \
  F(TopLevel, {{EmissionEvent::Kind::Function, 1}, make<EmissionEvent>(S)})

#define FIELDS_SharedVar(F)                                                    \
  F(Name, text("tile", S))                                                     \
  F(Function, text("staged<64, 16, 3>", S))                                    \
  F(QualifiedName, text("staged<64, 16, 3>::tile", S))                         \
  F(Loc, make<SourcePos>(S))                                                   \
  F(Type, text("__half[3][64][17]", S))                                        \
  F(ElementType, text("__half", S))                                            \
  F(CanonicalElementType, text("struct __half", S))                            \
  F(Shape, {3, 64, 17 + S})                                                    \
  F(ExtentNames, {"STAGES", "", text("kPad", S)})                              \
  F(ExtentLiterals, {make<WrittenLiteral>(S), WrittenLiteral()})               \
  F(Written, make<WrittenDeclaration>(S))                                      \
  F(ElementBytes, 2)                                                           \
  F(Align, 16)                                                                 \
  F(Bytes, 6528 + S)                                                           \
  F(UnknownReason, reason(ReasonKind::ElementTypeIncomplete, S))               \
  F(IsDynamic, true)                                                           \
  F(KernelLocal, true)                                                         \
  F(Emission, make<EmissionFacts>(S))

#define FIELDS_LaunchSite(F)                                                   \
  F(Loc, make<SourcePos>(S + 100))                                             \
  F(Form, text("cudaLaunchKernelEx", S))                                       \
  F(DynamicBytes, 65536 + S)                                                   \
  F(UnknownReason, reason(ReasonKind::DynamicSizeNotConstant, S))              \
  F(BlockThreads, 256 + S)                                                     \
  F(BlockShape, {32 + S, 8, 1})                                                \
  F(StatedBy, text("comment", S))                                              \
  F(Written, make<WrittenLaunch>(S))

#define FIELDS_AttributeCall(F)                                                \
  F(Attribute, AttributeCall::Kind::PreferredSharedMemoryCarveout)             \
  F(Loc, make<SourcePos>(S + 200))                                             \
  F(Value, -int64_t(S) - 1)                                                    \
  F(UnknownReason, reason(ReasonKind::AttributeValueNotConstant, S))

#define FIELDS_TmemAllocation(F)                                               \
  F(Loc, make<SourcePos>(S + 300))                                             \
  F(Form, text("cute::TMEM::Allocator2Sm::allocate", S))                       \
  F(Function, text("mma<128>", S))                                             \
  F(CtaGroup, 2)                                                               \
  F(Columns, 256 + S)                                                          \
  F(UnknownReason, reason(ReasonKind::ColumnsNotConstant, S))

#define FIELDS_LaunchBounds(F)                                                 \
  F(MaxThreads, 192 + S)                                                       \
  F(MinBlocks, 3 + S)                                                          \
  F(Loc, make<SourcePos>(S + 400))

#define FIELDS_ErrorTouch(F)                                                   \
  F(How, ErrorTouch::Kind::NoBody)                                             \
  F(Diagnostic, 1)

#define FIELDS_ExtentConstraint(F)                                             \
  F(Name, text("BM", S))                                                       \
  F(Is, ExtentConstraint::Kind::PowerOfTwo)                                    \
  F(Value, 32 + S)

#define FIELDS_FunctionFacts(F)                                                \
  F(Name, text("load_tile<64>", S))                                            \
  F(NoInline, true)                                                            \
  F(Callees, {1, 0})                                                           \
  F(SharedRefs, {1})                                                           \
  F(SharedDecls, {0, 1})                                                       \
  F(LocalArrays, {1})                                                          \
  F(ScopeParents, {0, 0, 1})                                                   \
  F(LocalArrayScopes, {2})                                                     \
  F(CallScopes, {{1, 2}, {0, 1}})                                              \
  F(Tmem, {make<TmemAllocation>(S + 1100)})                                    \
  F(UninstantiatedStatements, 3 + S)                                           \
  F(Accesses, {make<SharedAccess>(S + 1300)})                                  \
  F(Loops, {make<AccessLoop>(S + 1400)})

#define FIELDS_IndexNode(F)                                                    \
  F(O, IndexExpr::Op::Select)                                                  \
  F(Value, -5 - int64_t(S))                                                    \
  F(A, 0)                                                                      \
  F(B, 1)                                                                      \
  F(C, 2)

#define FIELDS_IndexExpr(F) F(Nodes, {make<IndexNode>(S)})

#define FIELDS_AccessLoop(F)                                                   \
  F(Loc, make<SourcePos>(S + 1200))                                            \
  F(Counter, text("j", S))                                                     \
  F(Init, make<IndexExpr>(S + 1))                                              \
  F(Condition, make<IndexExpr>(S + 2))                                         \
  F(Next, make<IndexExpr>(S + 3))

#define FIELDS_SharedAccess(F)                                                 \
  F(Loc, make<SourcePos>(S + 1250))                                            \
  F(Text, text("tile[threadIdx.x][j]", S))                                     \
  F(Var, 1)                                                                    \
  F(Store, true)                                                               \
  F(Width, 16 + S)                                                             \
  F(Subscripts, {make<IndexExpr>(S + 4)})                                      \
  F(Offset, make<IndexExpr>(S + 5))                                            \
  F(Guards, {make<IndexExpr>(S + 6)})                                          \
  F(Assumed, {text("k < K", S)})                                               \
  F(Loops, {0})                                                                \
  F(InLoop, true)                                                              \
  F(NotAnalysable, reason(ReasonKind::AccessValueAtRunTime, S))

#define FIELDS_BodySlicing(F)                                                  \
  F(Enabled, true)                                                             \
  F(Functions, 5 + S)                                                          \
  F(Statements, 9 + S)                                                         \
  F(Fallback, reason(ReasonKind::SliceUnnamedCall, S))                         \
  F(HeaderRecord, text("read", S))

#define FIELDS_KernelFacts(F)                                                  \
  F(Name, text("ns::staged<64, 16, 3>", S))                                    \
  F(Mangled, text("_ZN2ns6stagedILi64ELi16ELi3EEEvPKfPf", S))                  \
  F(NameDiffers, reason(ReasonKind::InternalArgument, S))                      \
  F(RelocatableMangled, text("__nv_static_5__x_1_k_cu_a__Z1kv", S))            \
  F(Loc, make<SourcePos>(S + 500))                                             \
  F(InstantiatedAt, make<SourcePos>(S + 600))                                  \
  F(Function, 1)                                                               \
  F(Launches, {make<LaunchSite>(S), make<LaunchSite>(S + 1)})                  \
  F(Attributes, {make<AttributeCall>(S)})                                      \
  F(Bounds, make<LaunchBounds>(S))                                             \
  F(Error, make<ErrorTouch>(S))                                                \
  F(Constraints, {make<ExtentConstraint>(S), make<ExtentConstraint>(S + 1)})

#define FIELDS_Note(F)                                                         \
  F(Message, text("allocated here", S))                                        \
  F(Loc, make<SourcePos>(S + 700))

#define FIELDS_Diagnostic(F)                                                   \
  F(Level, Severity::Warning)                                                  \
  F(Check, text("tilefit-budget", S))                                          \
  F(Message,                                                                   \
    text("quote \" backslash \\ newline \n tab \t \x01 \xc3\xa9 \xe2\x9c\x93", \
         S))                                                                   \
  F(Loc, make<SourcePos>(S + 800))                                             \
  F(Arch, text("sm_90a", S))                                                   \
  F(TranslationUnit, text("k.cu", S))                                          \
  F(Kernel, text("staged<64>", S))                                             \
  F(PromotedToError, true)                                                     \
  F(Figures,                                                                   \
    {{"static_smem_bytes", 49152 + S}, {"limit_bytes", uint64_t(1) << 40}})    \
  F(Notes, {make<Note>(S), make<Note>(S + 1)})

#define FIELDS_LostLaunch(F)                                                   \
  F(Loc, make<SourcePos>(S + 900))                                             \
  F(Callee, text("gemm<128, 64>", S))                                          \
  F(Unresolved, true)                                                          \
  F(Helper, text("ClusterLauncher::launch", S))

#define FIELDS_SourceFixup(F)                                                  \
  F(Loc, make<SourcePos>(S + 1000))                                            \
  F(Rule, text("shared-constructor", S))

// Inputs is not stored ("Not stored with it", Facts.h): see InputsAreNotStored.
#define FIELDS_TranslationUnitFacts(F)                                         \
  F(File, text("dir/k.cu", S))                                                 \
  F(Arch, text("sm_100a", S))                                                  \
  F(ParsedAs, text("sm_90", S))                                                \
  F(Jit, true)                                                                 \
  F(MaxRegisters, 64 + S)                                                      \
  F(RelocatableDeviceCode, true)                                               \
  F(Failed, true)                                                              \
  F(Partial, true)                                                             \
  F(ParseStopped, true)                                                        \
  F(SkippedHostCalls, true)                                                    \
  F(LineDependent, true)                                                       \
  F(ModuleIdCaveat, reason(ReasonKind::ModuleIdUnderArch, S))                  \
  F(Slicing, make<BodySlicing>(S + 17))                                        \
  F(HeaderWalk, text("made", S))                                               \
  F(Vars, {make<SharedVar>(S + 1), make<SharedVar>(S + 2)})                    \
  F(Kernels, {make<KernelFacts>(S + 3), make<KernelFacts>(S + 4)})             \
  F(Emission, make<EmissionProgram>(S + 5))                                    \
  F(ConstantVars, {make<SharedVar>(S + 6), make<SharedVar>(S + 7)})            \
  F(ConstantEmission, make<EmissionProgram>(S + 8))                            \
  F(LocalArrays, {make<SharedVar>(S + 9), make<SharedVar>(S + 10)})            \
  F(Functions, {make<FunctionFacts>(S + 15), make<FunctionFacts>(S + 16)})     \
  F(Diagnostics, {make<Diagnostic>(S + 11), make<Diagnostic>(S + 12)})         \
  F(Fixups, {make<SourceFixup>(S + 13)})                                       \
  F(LostLaunches, {make<LostLaunch>(S + 14)})

/// The paths of the fields that differ.
using Diffs = std::vector<std::string>;

#define TILEFIT_FILL_FIELD(Name, ...) V.Name = __VA_ARGS__;
#define TILEFIT_COMPARE_FIELD(Name, ...)                                       \
  compare(A.Name, B.Name, Path + "." #Name, Out);
#define TILEFIT_NAME_FIELD(Name, ...) #Name,
#define TILEFIT_DEFAULT_FIELD(Name, ...)                                       \
  {                                                                            \
    Diffs D;                                                                   \
    compare(V.Name, Default.Name, "", D);                                      \
    if (D.empty())                                                             \
      Out.push_back(#Name);                                                    \
  }
#define TILEFIT_STRUCT(T)                                                      \
  static void fill(T &V, unsigned S) {                                         \
    (void)S;                                                                   \
    FIELDS_##T(TILEFIT_FILL_FIELD)                                             \
  }                                                                            \
  static void compare(const T &A, const T &B, const std::string &Path,         \
                      Diffs &Out) {                                            \
    FIELDS_##T(TILEFIT_COMPARE_FIELD)                                          \
  }                                                                            \
  static std::vector<std::string> names(const T *) {                           \
    return {FIELDS_##T(TILEFIT_NAME_FIELD)};                                   \
  }                                                                            \
  static Diffs atDefault(const T &V) {                                         \
    const T Default{};                                                         \
    Diffs Out;                                                                 \
    FIELDS_##T(TILEFIT_DEFAULT_FIELD) return Out;                              \
  }

/// The lists above as functions; members of one class so that they see each
/// other whatever their order.
struct Fields {
  template <typename T> static T make(unsigned S) {
    T V;
    fill(V, S);
    return V;
  }

  template <typename T>
  static void compare(const T &A, const T &B, const std::string &Path,
                      Diffs &Out) {
    if (!(A == B))
      Out.push_back(Path);
  }
  template <typename T>
  static void compare(const std::optional<T> &A, const std::optional<T> &B,
                      const std::string &Path, Diffs &Out) {
    if (A.has_value() != B.has_value())
      Out.push_back(Path + " (set on one side only)");
    else if (A)
      compare(*A, *B, Path, Out);
  }
  template <typename T>
  static void compare(const std::vector<T> &A, const std::vector<T> &B,
                      const std::string &Path, Diffs &Out) {
    if (A.size() != B.size()) {
      Out.push_back(Path + " (" + std::to_string(A.size()) + " vs " +
                    std::to_string(B.size()) + " elements)");
      return;
    }
    for (size_t I = 0; I < A.size(); ++I)
      compare(A[I], B[I], Path + "[" + std::to_string(I) + "]", Out);
  }
  template <typename X, typename Y>
  static void compare(const std::pair<X, Y> &A, const std::pair<X, Y> &B,
                      const std::string &Path, Diffs &Out) {
    compare(A.first, B.first, Path + ".first", Out);
    compare(A.second, B.second, Path + ".second", Out);
  }

  TILEFIT_STRUCT(SourcePos)
  TILEFIT_STRUCT(WrittenLiteral)
  TILEFIT_STRUCT(WrittenDeclaration)
  TILEFIT_STRUCT(WrittenLaunch)
  TILEFIT_STRUCT(EmissionFacts)
  TILEFIT_STRUCT(EmissionEvent)
  TILEFIT_STRUCT(EmissionFunction)
  TILEFIT_STRUCT(EmissionProgram)
  TILEFIT_STRUCT(SharedVar)
  TILEFIT_STRUCT(LaunchSite)
  TILEFIT_STRUCT(AttributeCall)
  TILEFIT_STRUCT(TmemAllocation)
  TILEFIT_STRUCT(LaunchBounds)
  TILEFIT_STRUCT(ErrorTouch)
  TILEFIT_STRUCT(ExtentConstraint)
  TILEFIT_STRUCT(IndexNode)
  TILEFIT_STRUCT(IndexExpr)
  TILEFIT_STRUCT(AccessLoop)
  TILEFIT_STRUCT(SharedAccess)
  TILEFIT_STRUCT(FunctionFacts)
  TILEFIT_STRUCT(BodySlicing)
  TILEFIT_STRUCT(KernelFacts)
  TILEFIT_STRUCT(Note)
  TILEFIT_STRUCT(Diagnostic)
  TILEFIT_STRUCT(LostLaunch)
  TILEFIT_STRUCT(SourceFixup)
  TILEFIT_STRUCT(TranslationUnitFacts)
};

std::string joined(const Diffs &D) {
  std::string Out;
  for (const std::string &S : D)
    Out += "\n  " + S;
  return Out;
}

/// The fields of \p A and \p B that differ, Inputs aside (it is not stored).
Diffs differences(const TranslationUnitFacts &A,
                  const TranslationUnitFacts &B) {
  Diffs Out;
  Fields::compare(A, B, "facts", Out);
  return Out;
}

/// Equal as stored: both serialise to the same document.
void expectSameStored(const TranslationUnitFacts &A,
                      const TranslationUnitFacts &B) {
  EXPECT_EQ(factsToJson(A), factsToJson(B));
}

TranslationUnitFacts fullFacts() {
  return Fields::make<TranslationUnitFacts>(0);
}

std::optional<TranslationUnitFacts> roundTrip(const TranslationUnitFacts &F) {
  return factsFromJson(factsToJson(F));
}

TEST(FactsJsonTest, EveryFieldRoundTrips) {
  TranslationUnitFacts F = fullFacts();
  auto Back = roundTrip(F);
  ASSERT_TRUE(Back.has_value());
  Diffs D = differences(F, *Back);
  EXPECT_TRUE(D.empty()) << "fields that differ after the round trip:"
                         << joined(D);
  expectSameStored(F, *Back);

  // A few fields by hand, in case the comparison above compared nothing.
  EXPECT_EQ(Back->File, "dir/k.cu#0");
  EXPECT_TRUE(Back->SkippedHostCalls);
  EXPECT_EQ(Back->MaxRegisters, 64u);
  ASSERT_EQ(Back->Vars.size(), 2u);
  EXPECT_EQ(Back->Vars[1].Shape, (std::vector<uint64_t>{3, 64, 19}));
  EXPECT_EQ(Back->Vars[1].Emission.DeclOrder, (uint64_t(1) << 40) + 2);
  EXPECT_TRUE(Back->Vars[0].KernelLocal);
  ASSERT_EQ(Back->Kernels.size(), 2u);
  const KernelFacts &K = Back->Kernels[1];
  EXPECT_EQ(K.Mangled, "_ZN2ns6stagedILi64ELi16ELi3EEEvPKfPf#4");
  ASSERT_TRUE(K.InstantiatedAt.has_value());
  EXPECT_EQ(K.InstantiatedAt->Line, 12u + 604);
  ASSERT_TRUE(K.Error.has_value());
  EXPECT_EQ(K.Error->How, ErrorTouch::Kind::NoBody);
  ASSERT_EQ(K.Attributes.size(), 1u);
  EXPECT_EQ(K.Attributes[0].Value, -5);
  EXPECT_EQ(K.Attributes[0].Attribute,
            AttributeCall::Kind::PreferredSharedMemoryCarveout);
  ASSERT_EQ(K.Constraints.size(), 2u);
  EXPECT_EQ(K.Constraints[1].Is, ExtentConstraint::Kind::PowerOfTwo);
  EXPECT_EQ(K.Constraints[1].Value, 37u);
  ASSERT_EQ(Back->Diagnostics.size(), 2u);
  EXPECT_EQ(Back->Diagnostics[0].Level, Severity::Warning);
  EXPECT_EQ(Back->Diagnostics[0].Message, F.Diagnostics[0].Message);
  EXPECT_EQ(
      Back->Diagnostics[0].Figures.at(1),
      (std::pair<std::string, uint64_t>{"limit_bytes", uint64_t(1) << 40}));
  EXPECT_EQ(Back->Emission.TopLevel.at(1).K, EmissionEvent::Kind::Instantiate);
  EXPECT_EQ(Back->ConstantEmission.Functions.at(1).Name, "f<64>#9");
  EXPECT_EQ(Back->LostLaunches.at(0).Helper, "ClusterLauncher::launch#14");
  ASSERT_EQ(Back->Functions.size(), 2u);
  EXPECT_TRUE(Back->Functions[1].NoInline);
  EXPECT_EQ(Back->Functions[1].Callees, (std::vector<size_t>{1, 0}));
  EXPECT_EQ(Back->Functions[1].Tmem.at(0).Loc.Line, 12u + 1116 + 300);
  EXPECT_EQ(K.Function, 1u);
}

/// One struct of the lists above, and where one of its instances is in the full
/// document.
struct Where {
  const char *Struct;
  const char *Pointer;
  std::vector<std::string> Names;
  Diffs AtDefault; ///< The listed fields filled with their default value.
};

template <typename T> Where where(const char *Struct, const char *Pointer) {
  return {Struct, Pointer, Fields::names(static_cast<const T *>(nullptr)),
          Fields::atDefault(Fields::make<T>(0))};
}

// The lists above must name every field that is stored, and fill each with a
// value unlike its default: a field that came back at its default would not be
// told from one that was lost.
TEST(FactsJsonTest, EveryStoredFieldIsListed) {
  Json Doc = Json::parse(factsToJson(fullFacts()));
  ASSERT_TRUE(Doc.contains("facts"));
  const Json &J = Doc["facts"];
  const Where All[] = {
      where<TranslationUnitFacts>("TranslationUnitFacts", ""),
      where<SharedVar>("SharedVar", "/Vars/0"),
      where<SourcePos>("SourcePos", "/Vars/0/Loc"),
      where<WrittenLiteral>("WrittenLiteral", "/Vars/0/ExtentLiterals/0"),
      where<WrittenDeclaration>("WrittenDeclaration", "/Vars/0/Written"),
      where<WrittenLaunch>("WrittenLaunch", "/Kernels/0/Launches/0/Written"),
      where<EmissionFacts>("EmissionFacts", "/Vars/0/Emission"),
      where<EmissionProgram>("EmissionProgram", "/Emission"),
      where<EmissionFunction>("EmissionFunction", "/Emission/Functions/0"),
      where<EmissionEvent>("EmissionEvent", "/Emission/TopLevel/0"),
      where<KernelFacts>("KernelFacts", "/Kernels/0"),
      where<LaunchSite>("LaunchSite", "/Kernels/0/Launches/0"),
      where<AttributeCall>("AttributeCall", "/Kernels/0/Attributes/0"),
      where<LaunchBounds>("LaunchBounds", "/Kernels/0/Bounds"),
      where<TmemAllocation>("TmemAllocation", "/Functions/0/Tmem/0"),
      where<ErrorTouch>("ErrorTouch", "/Kernels/0/Error"),
      where<ExtentConstraint>("ExtentConstraint", "/Kernels/0/Constraints/0"),
      where<FunctionFacts>("FunctionFacts", "/Functions/0"),
      where<SharedAccess>("SharedAccess", "/Functions/0/Accesses/0"),
      where<AccessLoop>("AccessLoop", "/Functions/0/Loops/0"),
      where<IndexExpr>("IndexExpr", "/Functions/0/Loops/0/Init"),
      where<IndexNode>("IndexNode", "/Functions/0/Loops/0/Init/Nodes/0"),
      where<BodySlicing>("BodySlicing", "/Slicing"),
      where<Diagnostic>("Diagnostic", "/Diagnostics/0"),
      where<Note>("Note", "/Diagnostics/0/Notes/0"),
      where<SourceFixup>("SourceFixup", "/Fixups/0"),
      where<LostLaunch>("LostLaunch", "/LostLaunches/0"),
  };
  for (const Where &W : All) {
    SCOPED_TRACE(W.Struct);
    EXPECT_TRUE(W.AtDefault.empty())
        << "filled with its default value:" << joined(W.AtDefault);
    Json::json_pointer P(W.Pointer);
    ASSERT_TRUE(J.contains(P)) << W.Pointer;
    ASSERT_TRUE(J[P].is_object()) << W.Pointer;
    std::set<std::string> Stored, Listed(W.Names.begin(), W.Names.end());
    for (const auto &Item : J[P].items())
      Stored.insert(Item.key());
    EXPECT_EQ(Listed.size(), W.Names.size()) << "a field listed twice";
    for (const std::string &K : Stored)
      EXPECT_TRUE(Listed.count(K))
          << "stored field '" << K << "' is not in FIELDS_" << W.Struct;
    for (const std::string &K : Listed)
      EXPECT_TRUE(Stored.count(K))
          << "listed field '" << K << "' is not stored";
  }
}

TEST(FactsJsonTest, InputsAreNotStored) {
  TranslationUnitFacts F = fullFacts();
  F.Inputs = {"/abs/dir/k.cu", "/abs/dir/k.cuh"};
  auto Back = roundTrip(F);
  ASSERT_TRUE(Back.has_value());
  EXPECT_TRUE(Back->Inputs.empty());
  EXPECT_EQ(factsToJson(F), factsToJson(fullFacts()));
  EXPECT_EQ(factsToJson(F).find("/abs/dir/k.cuh"), std::string::npos);
}

// The call-graph stage's decisions are the model's, made again from the raw
// graph on every analysis: neither stored nor read back, so that changing a
// rule needs no change to what the cache holds.
TEST(FactsJsonTest, TheCallGraphStagesDecisionsAreNotStored) {
  TranslationUnitFacts F = fullFacts();
  F.Vars[0].ReferencedOutOfLine = true;
  F.Kernels[0].Reached = {1, 0};
  F.Kernels[0].Unreferenced = {1};
  F.Kernels[0].LocalArrays = {0, 1};
  F.Kernels[0].TmemAllocations = F.Functions[0].Tmem;
  auto Back = roundTrip(F);
  ASSERT_TRUE(Back.has_value());
  EXPECT_EQ(factsToJson(F), factsToJson(fullFacts()));
  EXPECT_FALSE(Back->Vars[0].ReferencedOutOfLine);
  EXPECT_TRUE(Back->Kernels[0].Reached.empty());
  EXPECT_TRUE(Back->Kernels[0].Unreferenced.empty());
  EXPECT_TRUE(Back->Kernels[0].LocalArrays.empty());
  EXPECT_TRUE(Back->Kernels[0].TmemAllocations.empty());
}

TEST(FactsJsonTest, DefaultFactsRoundTrip) {
  TranslationUnitFacts F;
  auto Back = roundTrip(F);
  ASSERT_TRUE(Back.has_value());
  Diffs D = differences(F, *Back);
  EXPECT_TRUE(D.empty()) << joined(D);
  expectSameStored(F, *Back);
  EXPECT_FALSE(Back->MaxRegisters.has_value());
}

TEST(FactsJsonTest, UnsetOptionalsStayUnset) {
  TranslationUnitFacts F = fullFacts();
  F.MaxRegisters.reset();
  F.Vars[0].Bytes.reset();
  KernelFacts &K = F.Kernels[0];
  K.InstantiatedAt.reset();
  K.Bounds.reset();
  K.Error.reset();
  K.Function.reset();
  K.Launches[0].DynamicBytes.reset();
  K.Launches[0].BlockThreads.reset();
  K.Attributes[0].Value.reset();
  F.Functions[0].Tmem[0].Columns.reset();
  F.Kernels[1].Bounds->MinBlocks.reset();
  auto Back = roundTrip(F);
  ASSERT_TRUE(Back.has_value());
  Diffs D = differences(F, *Back);
  EXPECT_TRUE(D.empty()) << joined(D);
  EXPECT_FALSE(Back->MaxRegisters.has_value());
  EXPECT_FALSE(Back->Vars[0].Bytes.has_value());
  EXPECT_FALSE(Back->Kernels[0].InstantiatedAt.has_value());
  EXPECT_FALSE(Back->Kernels[0].Bounds.has_value());
  EXPECT_FALSE(Back->Kernels[0].Error.has_value());
  EXPECT_FALSE(Back->Kernels[0].Function.has_value());
  EXPECT_FALSE(Back->Kernels[0].Launches[0].DynamicBytes.has_value());
  EXPECT_FALSE(Back->Kernels[0].Attributes[0].Value.has_value());
  EXPECT_FALSE(Back->Functions[0].Tmem[0].Columns.has_value());
  ASSERT_TRUE(Back->Kernels[1].Bounds.has_value());
  EXPECT_FALSE(Back->Kernels[1].Bounds->MinBlocks.has_value());
  EXPECT_EQ(Back->Kernels[1].Bounds->MaxThreads, 196u);
  // Zero is a value, not an unset optional.
  F.MaxRegisters = 0;
  Back = roundTrip(F);
  ASSERT_TRUE(Back.has_value());
  EXPECT_EQ(Back->MaxRegisters, 0u);
}

TEST(FactsJsonTest, EveryEnumeratorRoundTrips) {
  TranslationUnitFacts F = fullFacts();
  F.Emission.TopLevel = {{EmissionEvent::Kind::Variable, 0},
                         {EmissionEvent::Kind::Function, 0},
                         {EmissionEvent::Kind::Instantiate, 1}};
  F.Diagnostics.clear();
  for (Severity S :
       {Severity::Note, Severity::Remark, Severity::Warning, Severity::Error}) {
    Diagnostic D;
    D.Level = S;
    F.Diagnostics.push_back(D);
  }
  KernelFacts K = F.Kernels[0];
  K.Attributes = {Fields::make<AttributeCall>(0),
                  Fields::make<AttributeCall>(1)};
  K.Attributes[0].Attribute = AttributeCall::Kind::MaxDynamicSharedMemorySize;
  K.Attributes[1].Attribute =
      AttributeCall::Kind::PreferredSharedMemoryCarveout;
  K.Constraints.clear();
  for (auto Is :
       {ExtentConstraint::Kind::MultipleOf, ExtentConstraint::Kind::DivisorOf,
        ExtentConstraint::Kind::AtLeast, ExtentConstraint::Kind::AtMost,
        ExtentConstraint::Kind::PowerOfTwo})
    K.Constraints.push_back({"BM", Is, 16});
  F.Kernels = {K, F.Kernels[1], K};
  F.Kernels[0].Error->How = ErrorTouch::Kind::InItsCode;
  F.Kernels[1].Error->How = ErrorTouch::Kind::UnbuiltCode;
  F.Kernels[2].Error->How = ErrorTouch::Kind::NoBody;

  auto Back = roundTrip(F);
  ASSERT_TRUE(Back.has_value());
  Diffs D = differences(F, *Back);
  EXPECT_TRUE(D.empty()) << joined(D);
  expectSameStored(F, *Back);
  ASSERT_EQ(Back->Diagnostics.size(), 4u);
  EXPECT_EQ(Back->Diagnostics[1].Level, Severity::Remark);
  ASSERT_EQ(Back->Kernels.size(), 3u);
  EXPECT_EQ(Back->Kernels[1].Error->How, ErrorTouch::Kind::UnbuiltCode);
  EXPECT_EQ(Back->Kernels[0].Constraints.at(3).Is,
            ExtentConstraint::Kind::AtMost);
  EXPECT_EQ(Back->Emission.TopLevel.at(1).K, EmissionEvent::Kind::Function);
}

TEST(FactsJsonTest, ExtremeNumbersRoundTrip) {
  TranslationUnitFacts F = fullFacts();
  const uint64_t Max = std::numeric_limits<uint64_t>::max();
  F.Vars[0].Bytes = Max;
  F.Vars[0].Shape = {Max, 0, 1};
  F.Vars[1].Emission.DeclOrder = Max;
  F.Kernels[0].Attributes[0].Value = std::numeric_limits<int64_t>::min();
  F.Kernels[1].Attributes[0].Value = std::numeric_limits<int64_t>::max();
  F.Diagnostics[0].Figures = {{"", Max}};
  F.Vars[0].Loc.Line = std::numeric_limits<unsigned>::max();
  auto Back = roundTrip(F);
  ASSERT_TRUE(Back.has_value());
  Diffs D = differences(F, *Back);
  EXPECT_TRUE(D.empty()) << joined(D);
  EXPECT_EQ(Back->Vars[0].Bytes, Max);
  EXPECT_EQ(Back->Kernels[0].Attributes[0].Value,
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(Back->Vars[0].Loc.Line, std::numeric_limits<unsigned>::max());
}

TEST(FactsJsonTest, OutputIsOneCompactDocumentWithASchema) {
  std::string Text = factsToJson(fullFacts());
  EXPECT_EQ(Text.find('\n'),
            std::string::npos); // the message's newline is escaped
  Json Doc = Json::parse(Text);
  ASSERT_TRUE(Doc.is_object());
  ASSERT_TRUE(Doc.contains("schema"));
  ASSERT_TRUE(Doc["schema"].is_string());
  EXPECT_EQ(Doc["schema"].get<std::string>().rfind("tilefit-facts/", 0), 0u);
  EXPECT_TRUE(Doc["facts"].is_object());
}

TEST(FactsJsonTest, InvalidUtf8IsWrittenWithoutThrowing) {
  TranslationUnitFacts F = fullFacts();
  F.File = "dir/\xe9t\xe9.cu"; // Latin-1, not UTF-8
  std::string Text;
  ASSERT_NO_THROW(Text = factsToJson(F));
  auto Back = factsFromJson(Text);
  ASSERT_TRUE(Back.has_value());
  EXPECT_EQ(Back->File.rfind("dir/", 0), 0u);
  EXPECT_EQ(Back->Arch, F.Arch);
}

//===----------------------------------------------------------------------===//
// Documents that are not facts
//===----------------------------------------------------------------------===//

/// factsFromJson on \p Text: nothing, and no exception.
void expectRejected(const std::string &Text, const std::string &Why) {
  std::optional<TranslationUnitFacts> F;
  EXPECT_NO_THROW(F = factsFromJson(Text)) << Why;
  EXPECT_FALSE(F.has_value()) << Why;
}

Json fullDocument() { return Json::parse(factsToJson(fullFacts())); }

TEST(FactsJsonTest, ThePristineDocumentIsAccepted) {
  // The documents below are this one, spoilt: it must be accepted as it is.
  EXPECT_TRUE(factsFromJson(fullDocument().dump()).has_value());
  EXPECT_TRUE(factsFromJson(fullDocument().dump(2)).has_value());
}

TEST(FactsJsonTest, NotJsonIsRejected) {
  std::string Good = factsToJson(fullFacts());
  for (const std::string &Text :
       {std::string(), std::string("not json"), std::string("{"),
        std::string("{\"schema\":"), Good.substr(0, Good.size() / 2),
        Good.substr(0, Good.size() - 1), Good + "}", Good + " trailing",
        std::string("\xff\xfe{}", 4), std::string("{\0}", 3)})
    expectRejected(Text, "'" + Text.substr(0, 40) + "'");
}

TEST(FactsJsonTest, JsonThatIsNotAnObjectIsRejected) {
  for (const char *Text :
       {"null", "42", "true", "\"tilefit-facts\"", "[]", "[{}]"})
    expectRejected(Text, Text);
  Json Doc = fullDocument();
  expectRejected(Json::array({Doc}).dump(), "the document in an array");
}

TEST(FactsJsonTest, AnotherSchemaIsRejected) {
  Json Doc = fullDocument();
  std::string Schema = Doc["schema"].get<std::string>();
  for (const std::string &Other :
       {std::string("tilefit-facts/1"), Schema + "0",
        Schema.substr(0, Schema.size() - 1), std::string(""),
        std::string("tilefit-report/1")}) {
    Json D = Doc;
    D["schema"] = Other;
    expectRejected(D.dump(), "schema '" + Other + "'");
  }
  Json NoSchema = Doc;
  NoSchema.erase("schema");
  expectRejected(NoSchema.dump(), "no schema");
  Json NoFacts = Doc;
  NoFacts.erase("facts");
  expectRejected(NoFacts.dump(), "no facts");
  Json NullFacts = Doc;
  NullFacts["facts"] = nullptr;
  expectRejected(NullFacts.dump(), "null facts");
  Json ArrayFacts = Doc;
  ArrayFacts["facts"] = Json::array();
  expectRejected(ArrayFacts.dump(), "facts an array");
}

/// Every object of the full document (the facts and every struct within), by
/// JSON pointer.
std::vector<Json::json_pointer>
objectsOf(const Json &J, const Json::json_pointer &At = Json::json_pointer()) {
  std::vector<Json::json_pointer> Out;
  if (J.is_object())
    Out.push_back(At);
  if (J.is_object()) {
    for (const auto &Item : J.items())
      for (auto &P : objectsOf(Item.value(), At / Item.key()))
        Out.push_back(P);
  } else if (J.is_array()) {
    for (size_t I = 0; I < J.size(); ++I)
      for (auto &P : objectsOf(J[I], At / I))
        Out.push_back(P);
  }
  return Out;
}

TEST(FactsJsonTest, AMissingKeyAnywhereIsRejected) {
  Json Doc = fullDocument();
  size_t Tried = 0;
  for (const Json::json_pointer &Obj : objectsOf(Doc["facts"])) {
    for (const auto &Item : Doc["facts"][Obj].items()) {
      Json D = Doc;
      D["facts"][Obj].erase(Item.key());
      expectRejected(D.dump(), "without " + Obj.to_string() + "/" + Item.key());
      ++Tried;
    }
  }
  // Every field of every struct, once per instance: many.
  EXPECT_GT(Tried, 300u);
}

TEST(FactsJsonTest, AValueOfTheWrongTypeAnywhereIsRejected) {
  // Enumerators are strings; see UnknownEnumeratorsAreRejected.
  const std::set<std::string> Enums = {"K", "Attribute", "How", "Is", "Level"};
  Json Doc = fullDocument();
  size_t Tried = 0;
  for (const Json::json_pointer &Obj : objectsOf(Doc["facts"])) {
    for (const auto &Item : Doc["facts"][Obj].items()) {
      if (Enums.count(Item.key()))
        continue;
      const Json &V = Item.value();
      // A string for a number, a boolean, an array or an object; a number for a
      // string.
      Json Wrong = V.is_string() ? Json(42) : Json("12");
      Json D = Doc;
      D["facts"][Obj][Item.key()] = Wrong;
      expectRejected(D.dump(),
                     Obj.to_string() + "/" + Item.key() + " = " + Wrong.dump());
      ++Tried;
      if (V.is_array() || V.is_object()) {
        // An array for an object and an object for an array.
        Json E = Doc;
        E["facts"][Obj][Item.key()] =
            V.is_array() ? Json::object() : Json::array();
        expectRejected(E.dump(), Obj.to_string() + "/" + Item.key() +
                                     " of the other kind");
      }
    }
  }
  EXPECT_GT(Tried, 300u);
}

TEST(FactsJsonTest, ANullForARequiredValueIsRejected) {
  Json Doc = fullDocument();
  for (const char *P : {"/File", "/Jit", "/Vars", "/Vars/0/Loc",
                        "/Vars/0/Loc/Line", "/Vars/0/Shape",
                        "/Functions/0/Callees/0", "/Diagnostics/0/Figures/0"}) {
    Json D = Doc;
    D["facts"][Json::json_pointer(P)] = nullptr;
    expectRejected(D.dump(), std::string(P) + " = null");
  }
  // Where the field is optional, null is its unset value.
  Json D = Doc;
  D["facts"]["MaxRegisters"] = nullptr;
  auto F = factsFromJson(D.dump());
  ASSERT_TRUE(F.has_value());
  EXPECT_FALSE(F->MaxRegisters.has_value());
}

TEST(FactsJsonTest, IndicesOutOfRangeAreRejected) {
  // Each index one past what it refers to, in facts that are otherwise the full
  // ones.
  std::vector<
      std::pair<std::string, std::function<void(TranslationUnitFacts &)>>>
      Cases = {
          {"Error",
           [](TranslationUnitFacts &F) { F.Kernels[0].Error->Diagnostic = 2; }},
          {"Function",
           [](TranslationUnitFacts &F) { F.Kernels[1].Function = 2; }},
          {"Callees",
           [](TranslationUnitFacts &F) {
             F.Functions[0].Callees.push_back(2);
           }},
          {"SharedRefs",
           [](TranslationUnitFacts &F) { F.Functions[1].SharedRefs = {2}; }},
          {"SharedDecls",
           [](TranslationUnitFacts &F) {
             F.Functions[0].SharedDecls.push_back(2);
           }},
          {"function LocalArrays",
           [](TranslationUnitFacts &F) { F.Functions[1].LocalArrays = {2}; }},
          // Scopes: a parent after its child (a cycle), an array's or a
          // call's scope past the last, an array without its scope.
          {"ScopeParents",
           [](TranslationUnitFacts &F) {
             F.Functions[0].ScopeParents = {0, 2, 1};
           }},
          {"LocalArrayScopes",
           [](TranslationUnitFacts &F) {
             F.Functions[0].LocalArrayScopes = {3};
           }},
          {"LocalArrayScopes count",
           [](TranslationUnitFacts &F) {
             F.Functions[0].LocalArrayScopes = {1, 1};
           }},
          {"CallScopes scope",
           [](TranslationUnitFacts &F) {
             F.Functions[0].CallScopes.push_back({0, 3});
           }},
          {"CallScopes callee",
           [](TranslationUnitFacts &F) {
             F.Functions[0].CallScopes.push_back({2, 0});
           }},
          {"TopLevel variable",
           [](TranslationUnitFacts &F) {
             F.Emission.TopLevel.push_back({EmissionEvent::Kind::Variable, 2});
           }},
          {"TopLevel function",
           [](TranslationUnitFacts &F) {
             F.Emission.TopLevel.push_back({EmissionEvent::Kind::Function, 2});
           }},
          {"Body instantiation",
           [](TranslationUnitFacts &F) {
             F.Emission.Functions[1].Body.push_back(
                 {EmissionEvent::Kind::Instantiate, 2});
           }},
          {"Statics",
           [](TranslationUnitFacts &F) {
             F.Emission.Functions[0].Statics.push_back(2);
           }},
          {"constant TopLevel",
           [](TranslationUnitFacts &F) {
             F.ConstantEmission.TopLevel.push_back(
                 {EmissionEvent::Kind::Variable, 2});
           }},
          {"constant Statics",
           [](TranslationUnitFacts &F) {
             F.ConstantEmission.Functions[1].Statics = {2};
           }},
          // The constant program's variables are ConstantVars, not Vars.
          {"constant variables counted as ConstantVars",
           [](TranslationUnitFacts &F) {
             F.Vars.push_back(F.Vars[0]);
             F.ConstantEmission.TopLevel.push_back(
                 {EmissionEvent::Kind::Variable, 2});
           }},
      };
  for (auto &[Name, Spoil] : Cases) {
    TranslationUnitFacts F = fullFacts();
    Spoil(F);
    expectRejected(factsToJson(F), Name);
  }
  // The last index in range is fine.
  TranslationUnitFacts F = fullFacts();
  F.Kernels[0].Error->Diagnostic = 1;
  F.Kernels[0].Function = 1;
  F.Functions[0].Callees = {1};
  F.Emission.TopLevel = {{EmissionEvent::Kind::Variable, 1},
                         {EmissionEvent::Kind::Function, 1}};
  EXPECT_TRUE(roundTrip(F).has_value());
}

// Reading never throws, says FactsJson.h: a "schema" that is not a string made
// nlohmann::json::value("schema", "") throw type_error 302 outside
// factsFromJson's try block.
TEST(FactsJsonTest, ASchemaThatIsNotAStringIsRejectedWithoutThrowing) {
  Json Doc = fullDocument();
  for (Json Schema : {Json(6), Json(nullptr), Json::array({"tilefit-facts/6"}),
                      Json::object()}) {
    Json D = Doc;
    D["schema"] = Schema;
    expectRejected(D.dump(), "schema " + Schema.dump());
  }
}

// A malformed document is an error, says FactsJson.h:
// NLOHMANN_JSON_SERIALIZE_ENUM read an enumerator it does not know, or a value
// that is not a string at all, as the first one of its table ("Level": "fatal"
// or "Level": 42 came back as Severity::Note, "K": 7 as
// EmissionEvent::Kind::Variable); FactsJson.cpp's TILEFIT_JSON_ENUM refuses
// them.
TEST(FactsJsonTest, UnknownEnumeratorsAreRejected) {
  Json Doc = fullDocument();
  for (const char *P :
       {"/Diagnostics/0/Level", "/Emission/TopLevel/0/K",
        "/Kernels/0/Attributes/0/Attribute", "/Kernels/0/Error/How",
        "/Kernels/0/Constraints/0/Is"}) {
    for (Json Bad : {Json("fatal"), Json(42), Json::array()}) {
      Json D = Doc;
      D["facts"][Json::json_pointer(P)] = Bad;
      expectRejected(D.dump(), std::string(P) + " = " + Bad.dump());
    }
  }
}

} // namespace
} // namespace tilefit
