//===- BodySlicingTest.cpp - What body slicing leaves out, and when not
//----===//
//
// The fixtures under tests/fixtures/slicing hold the figures (checked against
// their expectations and ptxas, and against a parse without slicing, by
// FixtureTest). These tests show that slicing ran on them: the statements that
// cannot reach shared memory were not instantiated, the ones that can were;
// and that a unit it cannot vouch for is parsed again whole, saying why.
//
//===----------------------------------------------------------------------===//
#include "../support/TestSupport.h"

#include "tilefit/frontend/HeaderPch.h"
#include "tilefit/frontend/Parse.h"
#include "tilefit/frontend/PreambleStore.h"
#include "tilefit/model/FactsJson.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CRC.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

namespace tilefit {
namespace test {
namespace {

std::string slicingFixture(const std::string &Name) {
  return fixturesDir() + "/slicing/" + Name;
}

/// Whether a function whose name starts with \p Prefix is in the raw call
/// graph (FunctionFacts): instantiated and reached by a kernel.
bool instantiated(const TranslationUnitFacts &TU, llvm::StringRef Prefix) {
  return std::any_of(TU.Functions.begin(), TU.Functions.end(),
                     [&](const FunctionFacts &F) {
                       return llvm::StringRef(F.Name).starts_with(Prefix);
                     });
}

frontend::ParseEnvironment whole() {
  frontend::ParseEnvironment Env = environment();
  Env.SliceBodies = false;
  return Env;
}

struct Case {
  const char *Fixture;
  const char *Kept;    ///< A function a kept statement calls.
  const char *Skipped; ///< One only a left-out statement calls.
};

class SlicedFixture : public ::testing::TestWithParam<Case> {};

TEST_P(SlicedFixture, LeavesOutWhatCannotReachSharedMemory) {
  const Case C = GetParam();
  for (const char *Std : {"-std=c++17", "-std=c++20"}) {
    SCOPED_TRACE(Std);
    auto Sliced =
        parseFile(slicingFixture(C.Fixture), {Std}, {"sm_80"}, environment());
    auto Whole =
        parseFile(slicingFixture(C.Fixture), {Std}, {"sm_80"}, whole());
    ASSERT_EQ(Sliced.size(), 1u);
    ASSERT_EQ(Whole.size(), 1u);
    const TranslationUnitFacts &S = Sliced.front(), &W = Whole.front();
    ASSERT_FALSE(S.Failed);
    EXPECT_TRUE(S.Slicing.Enabled);
    EXPECT_TRUE(S.Slicing.Fallback.empty()) << describe(S.Slicing.Fallback);
    EXPECT_GT(S.Slicing.Functions, 0u);
    EXPECT_GT(S.Slicing.Statements, 0u);
    EXPECT_FALSE(W.Slicing.Enabled);
    EXPECT_EQ(W.Slicing.Functions, 0u);
    // What reaches shared memory was instantiated either way; what cannot,
    // only without slicing.
    EXPECT_TRUE(instantiated(S, C.Kept));
    EXPECT_TRUE(instantiated(W, C.Kept));
    EXPECT_FALSE(instantiated(S, C.Skipped));
    EXPECT_TRUE(instantiated(W, C.Skipped));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Slicing, SlicedFixture,
    ::testing::Values(
        Case{"adl_reached_static.cu", "tiles::stage", "scaled"},
        Case{"file_scope_in_callee.cu", "fill", "scale"},
        // The classes' default member initializers reach: the objects' declarations are kept.
        Case{"field_initializer_reached.cu", "stage_b", "scaled"},
        Case{"launch_in_header_helper.cu", "scaled_copy", "weight"},
        Case{"operators_reached.cu", "tiles::operator+", "scaled"},
        // `consume` receives a tile and keeps its use of it; `finish`
        // receives none and loses its call of `weight`, which only names
        // parameters.
        Case{"shared_arguments.cu", "consume", "weight"}),
    [](const ::testing::TestParamInfo<Case> &I) {
      std::string N = I.param.Fixture;
      N = N.substr(0, N.find('.'));
      N.erase(std::remove(N.begin(), N.end(), '_'), N.end());
      return N;
    });

// A block primitive whose default constructor declares `__shared__` storage,
// passed as a template argument: the sliced parse cannot vouch for it, and the
// unit is parsed again whole (the figure, ptxas's, is the fixture's).
TEST(BodySlicing, ATypeThatLeadsToSharedStorageIsParsedAgainWhole) {
  auto Facts = parseFile(slicingFixture("cub_type_argument.cu"), {"-std=c++17"},
                         {"sm_80"}, environment());
  ASSERT_EQ(Facts.size(), 1u);
  const TranslationUnitFacts &TU = Facts.front();
  ASSERT_FALSE(TU.Failed);
  EXPECT_TRUE(TU.Slicing.Enabled);
  EXPECT_EQ(TU.Slicing.Functions, 0u) << "the facts are the whole parse's";
  EXPECT_EQ(TU.Slicing.Fallback.Kind, ReasonKind::SliceUnsoundArgument)
      << describe(TU.Slicing.Fallback);
  EXPECT_NE(describe(TU.Slicing.Fallback).find("parsed again whole"),
            std::string::npos);
  EXPECT_TRUE(instantiated(TU, "total"));
}

// The same for a class whose default member initializer reaches shared
// memory, made as a template argument's type.
TEST(BodySlicing, AnInitializerThatReachesMakesItsClassParsedAgainWhole) {
  for (const char *Std : {"-std=c++17", "-std=c++20"}) {
    SCOPED_TRACE(Std);
    auto Facts = parseFile(slicingFixture("field_initializer_argument.cu"),
                           {Std}, {"sm_80"}, environment());
    ASSERT_EQ(Facts.size(), 1u);
    const TranslationUnitFacts &TU = Facts.front();
    ASSERT_FALSE(TU.Failed);
    EXPECT_EQ(TU.Slicing.Fallback.Kind, ReasonKind::SliceUnsoundArgument)
        << describe(TU.Slicing.Fallback);
    EXPECT_TRUE(instantiated(TU, "stage_a"));
  }
}

// A `__shared__` variable passed through a lambda's parameter to a sliced
// template's parameter: the call resolves to the lambda's call operator, whose
// body passes the parameter on, so the template keeps its uses of it and
// nothing is parsed again.
TEST(BodySlicing, AParameterALambdaPassesSharedMemoryToKeepsItsUses) {
  for (const char *Std : {"-std=c++17", "-std=c++20"}) {
    SCOPED_TRACE(Std);
    auto Facts = parseFile(slicingFixture("shared_argument_through_lambda.cu"),
                           {Std}, {"sm_80"}, environment());
    ASSERT_EQ(Facts.size(), 1u);
    const TranslationUnitFacts &TU = Facts.front();
    ASSERT_FALSE(TU.Failed);
    EXPECT_TRUE(TU.Slicing.Enabled);
    EXPECT_TRUE(TU.Slicing.Fallback.empty()) << describe(TU.Slicing.Fallback);
    ASSERT_EQ(TU.Vars.size(), 1u);
    EXPECT_TRUE(instantiated(TU, "store<3>"));
  }
}

// A `__shared__` variable passed to a sliced specialization's parameter by a
// call Clang builds after the specialization, which was sliced without that
// parameter's uses: the model finds the parameter unused, slicing left its
// uses out, and the unit is parsed again whole, saying where.
TEST(BodySlicing, AParameterSlicingLeftUnusedIsParsedAgainWhole) {
  for (const char *Std : {"-std=c++17", "-std=c++20"}) {
    SCOPED_TRACE(Std);
    auto Facts = parseFile(slicingFixture("shared_argument_built_later.cu"),
                           {Std}, {"sm_80"}, environment());
    ASSERT_EQ(Facts.size(), 1u);
    const TranslationUnitFacts &TU = Facts.front();
    ASSERT_FALSE(TU.Failed);
    EXPECT_EQ(TU.Slicing.Functions, 0u) << "the facts are the whole parse's";
    EXPECT_EQ(TU.Slicing.Fallback.Kind, ReasonKind::SliceUnsoundParameter)
        << describe(TU.Slicing.Fallback);
    EXPECT_EQ(TU.Slicing.Fallback.Args,
              (std::vector<std::string>{"buf", "store<3>"}));
    EXPECT_EQ(TU.Vars.size(), 2u);
    EXPECT_TRUE(instantiated(TU, "store<3>"));
  }
}

// Where a constructor with arguments reaches shared memory, Clang calls it
// where no name is written (a conversion, a copy): nothing is sliced, and the
// facts say why.
class BodySlicingDir : public TempDirTest {};

/// \p File is sliced (nothing falls back), \p Kept is instantiated and
/// \p Skipped only without slicing, and the report is the whole parse's.
void expectSlicedAsWhole(const std::string &File,
                         const std::vector<std::string> &Flags,
                         const char *Kept, const char *Skipped) {
  auto Sliced = parseFile(File, Flags, {"sm_80"}, environment());
  auto Whole = parseFile(File, Flags, {"sm_80"}, whole());
  ASSERT_EQ(Sliced.size(), 1u);
  ASSERT_EQ(Whole.size(), 1u);
  const TranslationUnitFacts &S = Sliced.front();
  ASSERT_FALSE(S.Failed);
  EXPECT_TRUE(S.Slicing.Fallback.empty()) << describe(S.Slicing.Fallback);
  EXPECT_GT(S.Slicing.Statements, 0u);
  EXPECT_TRUE(instantiated(S, Kept));
  EXPECT_FALSE(instantiated(S, Skipped));
  EXPECT_TRUE(instantiated(Whole.front(), Skipped));
  for (const std::string &D :
       slicingDifferences(Sliced, Whole, builtinDatabase()))
    ADD_FAILURE() << D;
}

TEST_F(BodySlicingDir, AConstructorThatReachesSharedMemoryStopsSlicing) {
  const std::string Source = R"(
struct Tile {
  __device__ Tile(int i) { __shared__ float s[64]; s[i % 64] = i; v = s[(i + 1) % 64]; }
  float v;
};
template <class T> __device__ float use(T t) { return t.v; }
template <int N> __global__ void k(float *out) {
  float x = use<Tile>(N);
  out[threadIdx.x] = x;
}
template __global__ void k<3>(float *);
)";
  auto Facts = parseFile(write("ctor.cu", Source), {"-std=c++17"}, {"sm_80"},
                         environment());
  ASSERT_EQ(Facts.size(), 1u);
  const TranslationUnitFacts &TU = Facts.front();
  EXPECT_TRUE(TU.Slicing.Enabled);
  EXPECT_EQ(TU.Slicing.Functions, 0u);
  EXPECT_EQ(TU.Slicing.Fallback,
            Reason(ReasonKind::SliceUnnamedCall, {"Tile::Tile", "by itself"}))
      << describe(TU.Slicing.Fallback);
  ASSERT_EQ(TU.Kernels.size(), 1u);
  EXPECT_TRUE(instantiated(TU, "use"));
}

// The reason names the calls through which such a function reaches, down to
// the one that names shared memory.
TEST_F(BodySlicingDir, TheFallbackSaysThroughWhatItReaches) {
  const std::string Source = R"(
__device__ float stage(int i) { __shared__ float s[64]; s[i % 64] = i; return s[(i + 1) % 64]; }
__device__ float relay(int i) { return stage(i) + 1; }
struct Tile {
  __device__ Tile(int i) { v = relay(i); }
  float v;
};
template <class T> __device__ float use(T t) { return t.v; }
template <int N> __global__ void k(float *out) { out[threadIdx.x] = use<Tile>(N); }
template __global__ void k<3>(float *);
)";
  auto Facts = parseFile(write("chain.cu", Source), {"-std=c++17"}, {"sm_80"},
                         environment());
  ASSERT_EQ(Facts.size(), 1u);
  EXPECT_EQ(Facts.front().Slicing.Fallback,
            Reason(ReasonKind::SliceUnnamedCall,
                   {"Tile::Tile", "through relay, stage"}))
      << describe(Facts.front().Slicing.Fallback);
}

// Sema instantiates what a kernel launched from host code calls while it is
// still inside the kernel's instantiation: the specializations it reaches,
// through a parameter passed on, keep their uses of the parameters that
// receive the tile (nothing is parsed again), and what cannot reach is left
// out.
TEST_F(BodySlicingDir, ACalleeInstantiatedInsideItsCallerKeepsWhatItReceives) {
  for (const char *Std : {"-std=c++17", "-std=c++20"}) {
    SCOPED_TRACE(Std);
    expectSlicedAsWhole(slicingFixture("shared_argument_nested_launch.cu"),
                        {Std}, "store<3>", "scale<3>");
  }
}

// A header's templates, one reaching a `__shared__` buffer through another,
// one reaching nothing; and a function a template calls by ADL, whose name a
// unit's own `__shared__` variable may take.
const char *const TilesHeader = R"(#pragma once
namespace tiles {
struct Tag { float v; };
__device__ float tile(Tag t) { return t.v * 2; }
template <int N> __device__ float stage(float x) {
  __shared__ float buf[N];
  buf[threadIdx.x % N] = x;
  __syncthreads();
  return buf[(threadIdx.x + 1) % N];
}
template <class T> __device__ T scaled(T v) { return v * 3; }
template <int N, class T> __device__ float through(T x) { return stage<N>(x); }
template <class T> __device__ float pick(T t) { return tile(t); }
} // namespace tiles
)";

/// The facts of \p TU as JSON, without what may differ between a parse that
/// loads precompiled headers and one that does not (FixtureTest's twins).
std::string comparable(const TranslationUnitFacts &TU) {
  nlohmann::json J = nlohmann::json::parse(factsToJson(TU));
  J["facts"].erase("Emission");
  J["facts"].erase("ConstantEmission");
  J["facts"]["Slicing"].erase("HeaderRecord");
  J["facts"].erase("HeaderWalk");
  J["facts"].erase("Inputs");
  return J["facts"].dump(1);
}

/// The files under \p Dir whose names end in \p Suffix.
std::vector<std::string> filesEndingIn(const std::string &Dir,
                                       llvm::StringRef Suffix) {
  std::vector<std::string> Out;
  std::error_code EC;
  for (llvm::sys::fs::recursive_directory_iterator It(Dir, EC), End;
       It != End && !EC; It.increment(EC))
    if (llvm::StringRef(It->path()).ends_with(Suffix))
      Out.push_back(It->path());
  return Out;
}

/// A parse environment that precompiles a unit's sole #include line into
/// \p Store (a prefix), and one that keeps preambles in \p Preambles.
frontend::ParseEnvironment prefixEnvironment(frontend::HeaderPchStore &Store) {
  frontend::ParseEnvironment Env = environmentWithoutPch();
  Env.Pch = &Store;
  Env.PrecompileSoleIncludes = true;
  return Env;
}
frontend::ParseEnvironment
preambleEnvironment(frontend::PreambleStore &Preambles) {
  frontend::ParseEnvironment Env = environmentWithoutPch();
  Env.Preambles = &Preambles;
  return Env;
}

/// The record at \p Path with its stamp (the first line) kept and the rest
/// replaced by \p Body, a record that does not read back; "" if unreadable.
std::string damaged(const std::string &Path, const std::string &Body) {
  auto Bytes = llvm::MemoryBuffer::getFile(Path);
  if (!Bytes)
    return "";
  const llvm::StringRef Stamp =
      (*Bytes)->getBuffer().take_until([](char C) { return C == '\n'; });
  return Stamp.str() + "\n" + Body;
}

/// The body slicer's records beside the precompiled prefixes under \p Dir.
std::vector<std::string> records(const std::string &Dir) {
  return filesEndingIn(Dir, ".inv");
}

// The first parse that loads a precompiled prefix records what the body
// slicer needs of the prefix's declarations; the next ones read that record
// instead of the declarations. Either way the facts are those of a parse
// without anything precompiled, sliced alike, under C++17 and C++20; a unit
// whose own `__shared__` variable takes a name the header's code calls by
// ADL does not use the record (the header's code would name it), nor does a
// parse whose record does not read back (it makes a new one).
TEST_F(BodySlicingDir, APrefixRecordGivesThePlainParsesFacts) {
  write("tiles.cuh", TilesHeader);
  const std::string Main = write("main.cu", R"(#include "tiles.cuh"
template <int N> __global__ void k(float *out) {
  float a = tiles::through<N>(out[threadIdx.x]);
  float b = tiles::scaled(out[threadIdx.x + 32]);
  out[threadIdx.x] = a + b;
}
template __global__ void k<64>(float *);
)");
  const std::string Named = write("named.cu", R"(#include "tiles.cuh"
template <int N> __global__ void k(float *out) {
  __shared__ float tile[N];
  tile[threadIdx.x % N] = tiles::pick(tiles::Tag{out[threadIdx.x]});
  __syncthreads();
  out[threadIdx.x] = tile[(threadIdx.x + 1) % N] + tiles::scaled(out[0]);
}
template __global__ void k<32>(float *);
)");
  for (const char *Std : {"-std=c++17", "-std=c++20"}) {
    SCOPED_TRACE(Std);
    const std::string PchDir = Dir + "/pch" + Std;
    frontend::HeaderPchStore Store(PchDir);
    const frontend::ParseEnvironment Env = prefixEnvironment(Store);
    auto Plain = parseFile(Main, {Std}, {"sm_80"}, environmentWithoutPch());
    auto Made = parseFile(Main, {Std}, {"sm_80"}, Env);
    ASSERT_EQ(records(PchDir).size(), 1u);
    auto Read = parseFile(Main, {Std}, {"sm_80"}, Env);
    ASSERT_EQ(Plain.size(), 1u);
    ASSERT_EQ(Made.size(), 1u);
    ASSERT_EQ(Read.size(), 1u);
    EXPECT_EQ(Plain.front().Slicing.HeaderRecord, "");
    EXPECT_EQ(Made.front().Slicing.HeaderRecord, "made");
    EXPECT_EQ(Read.front().Slicing.HeaderRecord, "read");
    for (const auto *With : {&Made, &Read}) {
      const TranslationUnitFacts &TU = With->front();
      EXPECT_TRUE(TU.Slicing.Fallback.empty()) << describe(TU.Slicing.Fallback);
      EXPECT_GT(TU.Slicing.Statements, 0u);
      EXPECT_TRUE(instantiated(TU, "tiles::stage<64>"));
      EXPECT_FALSE(instantiated(TU, "tiles::scaled"));
      EXPECT_EQ(comparable(TU), comparable(Plain.front()));
    }

    // Another unit with the same prefix, whose own `__shared__` variable is
    // named `tile`, as the function `pick` calls by ADL.
    auto NamedPlain =
        parseFile(Named, {Std}, {"sm_80"}, environmentWithoutPch());
    auto NamedRecorded = parseFile(Named, {Std}, {"sm_80"}, Env);
    ASSERT_EQ(NamedRecorded.size(), 1u);
    EXPECT_EQ(NamedRecorded.front().Slicing.HeaderRecord, "");
    EXPECT_EQ(comparable(NamedRecorded.front()),
              comparable(NamedPlain.front()));

    // A record that does not read back is made again.
    const std::string Record = records(PchDir).front();
    const std::string Damaged =
        damaged(Record, "tilefit inventory 1\n\x01\x02");
    ASSERT_FALSE(Damaged.empty());
    rewrite(Record, Damaged);
    auto Remade = parseFile(Main, {Std}, {"sm_80"}, Env);
    ASSERT_EQ(Remade.size(), 1u);
    EXPECT_EQ(Remade.front().Slicing.HeaderRecord, "made");
    EXPECT_EQ(comparable(Remade.front()), comparable(Plain.front()));
    auto ReadAgain = parseFile(Main, {Std}, {"sm_80"}, Env);
    EXPECT_EQ(ReadAgain.front().Slicing.HeaderRecord, "read");

    // The header changes: the old prefix's record is never read again; the
    // next run builds the prefix anew (other IDs) and makes its record.
    const std::string Header = Dir + "/tiles.cuh";
    rewrite(Header, std::string(TilesHeader) + "namespace tiles {}\n");
    auto Changed = parseFile(Main, {Std}, {"sm_80"}, Env);
    ASSERT_EQ(Changed.size(), 1u);
    EXPECT_NE(Changed.front().Slicing.HeaderRecord, "read");
    EXPECT_EQ(comparable(Changed.front()), comparable(Plain.front()));
    frontend::HeaderPchStore NextRun(PchDir);
    frontend::ParseEnvironment NextEnv = Env;
    NextEnv.Pch = &NextRun;
    auto Rebuilt = parseFile(Main, {Std}, {"sm_80"}, NextEnv);
    ASSERT_EQ(Rebuilt.size(), 1u);
    EXPECT_EQ(Rebuilt.front().Slicing.HeaderRecord, "made");
    EXPECT_EQ(comparable(Rebuilt.front()), comparable(Plain.front()));
    rewrite(Header, TilesHeader);

    // The language server's preamble keeps its record in memory.
    frontend::PreambleStore Preambles;
    const frontend::ParseEnvironment WithPreamble =
        preambleEnvironment(Preambles);
    auto Built = parseFile(Main, {Std}, {"sm_80"}, WithPreamble);
    auto Reused = parseFile(Main, {Std}, {"sm_80"}, WithPreamble);
    ASSERT_EQ(Built.size(), 1u);
    ASSERT_EQ(Reused.size(), 1u);
    EXPECT_EQ(Built.front().Slicing.HeaderRecord, "made");
    EXPECT_EQ(Reused.front().Slicing.HeaderRecord, "read");
    EXPECT_EQ(comparable(Reused.front()), comparable(Plain.front()));
  }
}

// The first parse that loads a prefix or a preamble records which members of
// the header's namespaces the walks visit (frontend/TraversalScope.h); the
// next ones visit those, and of the header's templates only those they read
// themselves. What each walk finds in the header's namespaces is found either
// way: a kernel and a `__constant__` array, a device function with a static
// `__shared__` array, a kernel template the header instantiates itself and
// launches from an inline host function, a template the header instantiates
// for a kernel of its own that the unit never names (Sema made that
// specialization while building the header: a parse that loads it does not
// read the template), a template only the unit instantiates, in a nested
// namespace; the facts are those of a parse without
// anything precompiled, under C++17 and C++20. A record that does not read
// back is made again.
TEST_F(BodySlicingDir, AHeaderWalkRecordGivesThePlainParsesFacts) {
  write("walk.cuh", R"(#pragma once
namespace walk {
__constant__ float table[16];
__global__ void plain(float *out) { out[threadIdx.x] = table[threadIdx.x % 16]; }
__device__ float staged(int i) {
  __shared__ float s[48];
  s[i % 48] = i;
  __syncthreads();
  return s[(i + 1) % 48];
}
template <int N> __global__ void made(float *out) {
  __shared__ float m[N];
  m[threadIdx.x % N] = staged(threadIdx.x);
  out[threadIdx.x] = m[(threadIdx.x + 1) % N];
}
inline void launchMade(float *p) { made<8><<<1, 32>>>(p); }
template <int N> __device__ auto deduced(int i) {
  __shared__ float d[N];
  d[i % N] = i;
  __syncthreads();
  return d[(i + 1) % N];
}
__device__ float viaDeduced(int i) { return deduced<24>(i); }
__global__ void headerOnly(float *out) { out[threadIdx.x] = viaDeduced(threadIdx.x); }
namespace inner {
template <int N> __device__ float used(float x) {
  __shared__ float t[N];
  t[threadIdx.x % N] = x;
  __syncthreads();
  return t[(threadIdx.x + 3) % N];
}
template <int N> __device__ float unused(float x) {
  __shared__ float u[N];
  u[0] = x;
  return u[1];
}
} // namespace inner
} // namespace walk
)");
  const std::string Main = write("walker.cu", R"(#include "walk.cuh"
template <int N> __global__ void k(float *out) {
  out[threadIdx.x] = walk::inner::used<N>(out[threadIdx.x]);
}
namespace {
__global__ void hidden(float *out) { out[threadIdx.x] = 2; }
} // namespace
void run(float *p) {
  k<64><<<1, 64>>>(p);
  walk::plain<<<1, 32>>>(p);
  walk::launchMade(p);
  hidden<<<1, 32>>>(p);
}
)");
  // nvcc names the anonymous namespace after the unit's first external
  // definition, the header's walk::plain (not the unit's run()): its id is
  // the crc32 of its mangled name.
  char PlainId[16];
  std::snprintf(PlainId, sizeof(PlainId), "_%08x",
                llvm::crc32(llvm::arrayRefFromStringRef("_ZN4walk5plainEPf")));
  for (const char *Std : {"-std=c++17", "-std=c++20"}) {
    SCOPED_TRACE(Std);
    const std::string PchDir = Dir + "/walk" + Std;
    frontend::HeaderPchStore Store(PchDir);
    const frontend::ParseEnvironment Env = prefixEnvironment(Store);
    auto Plain = parseFile(Main, {Std}, {"sm_80"}, environmentWithoutPch());
    ASSERT_EQ(Plain.size(), 1u);
    // What the walks must find, so that the comparison below means something.
    std::vector<std::string> Kernels, Vars;
    for (const KernelFacts &K : Plain.front().Kernels)
      Kernels.push_back(K.Name);
    for (const SharedVar &V : Plain.front().Vars)
      Vars.push_back(V.Name);
    auto Has = [](const std::vector<std::string> &Names, const char *Name) {
      return std::find(Names.begin(), Names.end(), Name) != Names.end();
    };
    for (const char *K :
         {"k<64>", "walk::plain", "walk::made<8>", "walk::headerOnly"})
      EXPECT_TRUE(Has(Kernels, K)) << K;
    for (const char *V : {"s", "m", "t", "d"})
      EXPECT_TRUE(Has(Vars, V)) << V;
    EXPECT_FALSE(Has(Vars, "u"));
    const auto Hidden = std::find_if(
        Plain.front().Kernels.begin(), Plain.front().Kernels.end(),
        [](const KernelFacts &K) { return K.Name == "(anonymous namespace)::hidden"; });
    ASSERT_NE(Hidden, Plain.front().Kernels.end());
    EXPECT_NE(Hidden->Mangled.find(std::string(PlainId) + "6hidden"),
              std::string::npos)
        << Hidden->Mangled;
    EXPECT_EQ(Plain.front().ConstantVars.size(), 1u);
    EXPECT_EQ(Plain.front().HeaderWalk, "");

    auto Made = parseFile(Main, {Std}, {"sm_80"}, Env);
    ASSERT_EQ(filesEndingIn(PchDir, ".walk").size(), 1u);
    auto Read = parseFile(Main, {Std}, {"sm_80"}, Env);
    ASSERT_EQ(Made.size(), 1u);
    ASSERT_EQ(Read.size(), 1u);
    EXPECT_EQ(Made.front().HeaderWalk, "made");
    EXPECT_EQ(Read.front().HeaderWalk, "read");
    EXPECT_EQ(comparable(Made.front()), comparable(Plain.front()));
    EXPECT_EQ(comparable(Read.front()), comparable(Plain.front()));

    // A record that does not read back is made again.
    const std::string Record = filesEndingIn(PchDir, ".walk").front();
    const std::string Damaged =
        damaged(Record, "tilefit-header-walk/1\n\x05\x01");
    ASSERT_FALSE(Damaged.empty());
    rewrite(Record, Damaged);
    auto Remade = parseFile(Main, {Std}, {"sm_80"}, Env);
    ASSERT_EQ(Remade.size(), 1u);
    EXPECT_EQ(Remade.front().HeaderWalk, "made");
    EXPECT_EQ(comparable(Remade.front()), comparable(Plain.front()));
    EXPECT_EQ(parseFile(Main, {Std}, {"sm_80"}, Env).front().HeaderWalk,
              "read");

    // The language server's preamble keeps its record in memory.
    frontend::PreambleStore Preambles;
    const frontend::ParseEnvironment WithPreamble =
        preambleEnvironment(Preambles);
    auto Built = parseFile(Main, {Std}, {"sm_80"}, WithPreamble);
    auto Reused = parseFile(Main, {Std}, {"sm_80"}, WithPreamble);
    ASSERT_EQ(Built.size(), 1u);
    ASSERT_EQ(Reused.size(), 1u);
    EXPECT_EQ(Built.front().HeaderWalk, "made");
    EXPECT_EQ(Reused.front().HeaderWalk, "read");
    EXPECT_EQ(comparable(Built.front()), comparable(Plain.front()));
    EXPECT_EQ(comparable(Reused.front()), comparable(Plain.front()));
  }
}

// C++20 calls `operator==` for `a != b` (a rewritten comparison): an
// `operator==` that reaches shared memory keeps the statement with `!=`, and
// the figure is the whole parse's (ptxas: 128 bytes).
TEST_F(BodySlicingDir, ARewrittenComparisonKeepsItsStatement) {
  const std::string Source = R"(
struct Key { int v; };
__device__ bool operator==(Key a, Key b) {
  __shared__ int seen[32];
  seen[threadIdx.x % 32] = a.v;
  __syncthreads();
  return seen[(threadIdx.x + 1) % 32] == b.v;
}
template <class T> __device__ T twice(T v) { return v * 2; }
template <class K> __global__ void k(int *out, const int *in) {
  K a{in[0]}, b{in[1]};
  bool differ = a != b;
  int t = twice(in[2]);
  out[0] = differ;
  out[1] = t;
}
template __global__ void k<Key>(int *, const int *);
)";
  const std::string File = write("rewritten.cu", Source);
  expectSlicedAsWhole(File, {"-std=c++20"}, "operator==", "twice");
  const Report R =
      analyzeFile(File, {"-std=c++20"}, {"sm_80"}, builtinDatabase());
  ASSERT_EQ(R.Kernels.size(), 1u);
  EXPECT_EQ(R.Kernels.front().StaticBytes, std::optional<uint64_t>(128));
}

// A device lambda written in host code and passed to a kernel template calls
// a device function that names a `__shared__` buffer. No device function
// holds it: it is a function of the inventory of its own, named
// `operator()`, so the kernel's `f(o)` is kept and the buffer counted
// (ptxas: 256 bytes). A lambda's type names it by its file and line, so this
// is a test, not a fixture.
TEST_F(BodySlicingDir, ADeviceLambdaFromHostCodeKeepsItsCall) {
  const std::string Source = R"(
__shared__ float buf[64];
__device__ float stage(float v) {
  buf[threadIdx.x % 64] = v;
  __syncthreads();
  return buf[(threadIdx.x + 1) % 64];
}
template <class T> __device__ T twice(T v) { return v * 2; }
template <class F> __global__ void apply(F f, float *o) {
  float t = twice(o[threadIdx.x]);
  f(o);
  o[threadIdx.x + 64] = t;
}
void launch(float *o) {
  apply<<<1, 64>>>([] __device__(float *p) { p[threadIdx.x] = stage(p[threadIdx.x]); }, o);
}
)";
  const std::string File = write("host_lambda.cu", Source);
  // Clang accepts `__device__` on a lambda without nvcc's --extended-lambda.
  const std::vector<std::string> Flags = {"-std=c++17"};
  expectSlicedAsWhole(File, Flags, "stage", "twice");
  const Report R = analyzeFile(File, Flags, {"sm_80"}, builtinDatabase());
  ASSERT_EQ(R.Kernels.size(), 1u);
  EXPECT_EQ(R.Kernels.front().StaticBytes, std::optional<uint64_t>(256));
  if (haveNvcc()) {
    PtxasFigures P =
        ptxasFigures(File, {"-std=c++17", "--extended-lambda"}, {"sm_80"});
    ASSERT_TRUE(P.Error.empty()) << P.Error;
    ASSERT_EQ(P.Figures["sm_80"].size(), 1u);
    EXPECT_EQ(P.Figures["sm_80"].begin()->second, 256u);
  }
}

// A template is sliced as Sema first instantiates it (an explicit
// instantiation while parsing, or at the end of the unit): one the unit never
// instantiates is not sliced (on CuTe and CUTLASS, most of a unit's).
// `never` would lose statements as `used` and `later` do.
TEST_F(BodySlicingDir, OnlyTheTemplatesInstantiatedAreSliced) {
  const std::string Source = R"(
__device__ float scaled(float v) { return v * 2; }
template <int N> __global__ void used(float *out) {
  __shared__ float tile[64];
  tile[threadIdx.x % 64] = out[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = tile[(threadIdx.x + 1) % 64];
  out[threadIdx.x + 64] = scaled(out[threadIdx.x]) * N;
}
template <int N> __global__ void never(float *out) {
  __shared__ float tile[32];
  tile[threadIdx.x % 32] = out[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = tile[(threadIdx.x + 1) % 32];
  out[threadIdx.x + 32] = scaled(out[threadIdx.x]) * N;
}
template <int N> __global__ void later(float *out) {
  __shared__ float tile[16];
  tile[threadIdx.x % 16] = out[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = tile[(threadIdx.x + 1) % 16];
  out[threadIdx.x + 16] = scaled(out[threadIdx.x]) * N;
}
template __global__ void used<2>(float *);
void run(float *out) { later<3><<<1, 16>>>(out); }
)";
  const std::string File = write("lazy.cu", Source);
  for (const char *Std : {"-std=c++17", "-std=c++20"}) {
    SCOPED_TRACE(Std);
    expectSlicedAsWhole(File, {Std}, "used", "scaled");
    auto Facts = parseFile(File, {Std}, {"sm_80"}, environment());
    ASSERT_EQ(Facts.size(), 1u);
    const TranslationUnitFacts &TU = Facts.front();
    // Each loses its call of `scaled` and its `__syncthreads()`.
    EXPECT_EQ(TU.Slicing.Functions, 2u) << "used and later, not never";
    EXPECT_EQ(TU.Slicing.Statements, 4u);
    EXPECT_EQ(TU.Kernels.size(), 2u);
  }
}

} // namespace
} // namespace test
} // namespace tilefit
