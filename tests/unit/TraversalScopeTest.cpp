//===- TraversalScopeTest.cpp - A precompiled prefix's recorded scope -----===//
//
// A parse that loads a precompiled prefix (the runtime headers, then the unit's
// leading #include lines) visits the prefix's top-level declarations but the
// runtime headers'. Which ones is recorded when the prefix is built, so that
// the parse reads only those from the precompiled header; the record must give
// the very list a parse that reads them all and chooses itself gets, and a
// record that does not fit the header must be refused.
//
//===----------------------------------------------------------------------===//
#include "../support/TestSupport.h"

#include "../../frontend/lib/TraversalScope.h"

#include "tilefit/frontend/Parse.h"
#include "tilefit/frontend/HeaderPch.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Tooling/Tooling.h"

#include "llvm/ADT/StringRef.h"

#include <gtest/gtest.h>

namespace tilefit {
namespace frontend {
namespace {

/// What the parse's traversal would cover, both ways.
struct Scopes {
  bool Recorded = false; ///< prefixTraversalScope accepted the record.
  std::vector<std::string> FromRecord, FromAll;
  size_t DeclsRead = 0; ///< Top-level declarations read to choose.
};

std::vector<std::string> describe(const std::vector<clang::Decl *> &Decls) {
  std::vector<std::string> Out;
  for (const clang::Decl *D : Decls) {
    std::string S = D->getDeclKindName();
    if (const auto *N = llvm::dyn_cast<clang::NamedDecl>(D))
      S += " " + N->getQualifiedNameAsString();
    Out.push_back(S);
  }
  return Out;
}

class ScopeConsumer : public clang::ASTConsumer {
public:
  ScopeConsumer(std::string Record, Scopes &Out)
      : Record(std::move(Record)), Out(Out) {}
  void HandleTranslationUnit(clang::ASTContext &Ctx) override {
    std::vector<clang::Decl *> FromRecord;
    Out.Recorded = prefixTraversalScope(Ctx, Record, FromRecord);
    Out.FromRecord = describe(FromRecord);
    // The other way: every top-level declaration read, those of the runtime
    // headers left out.
    std::vector<clang::Decl *> All;
    llvm::DenseMap<clang::FileID, bool> Runtime;
    for (clang::Decl *D : Ctx.getTranslationUnitDecl()->decls()) {
      ++Out.DeclsRead;
      if (!fromRuntimeHeaders(Ctx.getSourceManager(), D->getLocation(),
                              Runtime))
        All.push_back(D);
    }
    Out.FromAll = describe(All);
  }

private:
  std::string Record;
  Scopes &Out;
};

class ScopeAction : public clang::ASTFrontendAction {
public:
  ScopeAction(std::string Record, Scopes &Out)
      : Record(std::move(Record)), Out(Out) {}
  std::unique_ptr<clang::ASTConsumer>
  CreateASTConsumer(clang::CompilerInstance &, llvm::StringRef) override {
    return std::make_unique<ScopeConsumer>(Record, Out);
  }

private:
  std::string Record;
  Scopes &Out;
};

/// Loads the prefix of \p Includes (building it first) in the parse of a unit,
/// with the record \p Edit makes of the one stored beside it.
class ScopeFactory : public clang::tooling::FrontendActionFactory {
public:
  ScopeFactory(HeaderPchStore &Store, std::vector<std::string> Includes,
               std::function<void(std::string &)> Edit, Scopes &Out)
      : Store(Store), Includes(std::move(Includes)), Edit(std::move(Edit)),
        Out(Out) {}
  std::unique_ptr<clang::FrontendAction> create() override {
    std::string Record = Store.scope(Used);
    Edit(Record);
    return std::make_unique<ScopeAction>(Record, Out);
  }
  bool runInvocation(std::shared_ptr<clang::CompilerInvocation> Invocation,
                     clang::FileManager *Files,
                     std::shared_ptr<clang::PCHContainerOperations> Ops,
                     clang::DiagnosticConsumer *Diags) override {
    Used = Store.use(*Invocation, Includes);
    return FrontendActionFactory::runInvocation(std::move(Invocation), Files,
                                                std::move(Ops), Diags);
  }
  std::string Used;

private:
  HeaderPchStore &Store;
  std::vector<std::string> Includes;
  std::function<void(std::string &)> Edit;
  Scopes &Out;
};

class TraversalScopeTest : public test::TempDirTest {
protected:
  void SetUp() override {
    TempDirTest::SetUp();
    Env = test::environmentWithoutPch();
    if (!Env.Toolkit.found())
      GTEST_SKIP() << "no CUDA toolkit: nothing is precompiled without its "
                      "runtime headers";
    // Top-level declarations of many kinds, and a system header of the
    // project's (not a runtime header: visited) behind the project's own.
    Header = write("src/common.cuh", R"(#pragma once
#include <cooperative_groups.h>
namespace tiles {
template <int N> struct Tile { float v[N]; };
}
extern "C" __device__ float ext_helper(float);
typedef tiles::Tile<8> Tile8;
static __device__ float unused_static(float x) { return x; }
template <typename T> __device__ T twice(T x) { return x + x; }
__device__ float helper(float x) {
  __shared__ float scratch[64];
  scratch[threadIdx.x % 64] = twice(x);
  __syncthreads();
  return scratch[0];
}
__global__ void header_kernel(float *o) { o[0] = helper(o[1]); }
__constant__ float table[16];
)");
    Unit = write("src/unit.cu", R"(#include <cooperative_groups.h>
#include "common.cuh"
__global__ void k(float *o) {
  __shared__ tiles::Tile<128> t;
  t.v[threadIdx.x % 8] = helper(o[0]);
  o[threadIdx.x] = t.v[0] + table[0];
}
)");
  }

  Scopes parse(std::function<void(std::string &)> Edit, std::string *Used) {
    CompileCommand C;
    C.File = Unit;
    C.Directory = Dir + "/src";
    C.Arguments = {"clang++", "-std=c++17", Unit};
    std::vector<UnitJob> Jobs = planJobs({C}, {"sm_90"});
    EXPECT_EQ(Jobs.size(), 1u);
    HeaderPchStore Store(Dir + "/pch");
    Scopes Out;
    ScopeFactory Factory(
        Store,
        {"#include <cooperative_groups.h>", "#include \"" + Header + "\""},
        std::move(Edit), Out);
    auto Files = llvm::makeIntrusiveRefCnt<clang::FileManager>(
        clang::FileSystemOptions());
    clang::tooling::ToolInvocation Invocation(
        parseCommandLine(Jobs[0], Env), &Factory, Files.get(),
        std::make_shared<clang::PCHContainerOperations>());
    EXPECT_TRUE(Invocation.run());
    *Used = Factory.Used;
    return Out;
  }

  ParseEnvironment Env;
  std::string Header, Unit;
};

TEST_F(TraversalScopeTest, TheRecordGivesWhatReadingEveryDeclarationGives) {
  std::string Used;
  Scopes S = parse([](std::string &) {}, &Used);
  ASSERT_TRUE(llvm::StringRef(Used).contains("/prefix-")) << Used;
  EXPECT_TRUE(S.Recorded) << "the record beside the prefix was refused";
  EXPECT_EQ(S.FromRecord, S.FromAll);
  // The project's header is there, and the runtime headers are not.
  const auto Has = [&](const std::string &What) {
    return std::find(S.FromRecord.begin(), S.FromRecord.end(), What) !=
           S.FromRecord.end();
  };
  EXPECT_TRUE(Has("Function header_kernel"));
  EXPECT_TRUE(Has("Namespace tiles"));
  EXPECT_TRUE(Has("LinkageSpec"));
  EXPECT_TRUE(Has("Var table"));
  EXPECT_TRUE(Has("Function k"));
  EXPECT_FALSE(Has("Function cudaMalloc"));
  // Most of what the precompiled header holds is the runtime headers': the
  // record spares reading it.
  EXPECT_GT(S.DeclsRead, 2 * S.FromRecord.size());
}

TEST_F(TraversalScopeTest, ARecordThatDoesNotFitTheHeaderIsRefused) {
  std::string Used;
  for (auto Edit : std::vector<std::function<void(std::string &)>>{
           [](std::string &R) {
             R += "\x01"
                  "1";
           },                                               // one more
           [](std::string &R) { R.resize(R.size() - 2); },  // one fewer
           [](std::string &R) { R[R.size() - 2] ^= 0x7f; }, // another kind
           [](std::string &R) { R[0] = 'x'; },              // another format
           [](std::string &R) { R.pop_back(); }}) {         // cut short
    Scopes S = parse(Edit, &Used);
    EXPECT_FALSE(S.Recorded);
    EXPECT_TRUE(S.FromRecord.empty());
    EXPECT_FALSE(S.FromAll.empty());
  }
}

TEST_F(TraversalScopeTest, TheRecordDecidesWhatIsVisited) {
  // A choice flipped fits the header's kinds: the record is taken as it is.
  std::string Used;
  Scopes S = parse(
      [](std::string &R) { R.back() = R.back() == '1' ? '0' : '1'; }, &Used);
  EXPECT_TRUE(S.Recorded);
  EXPECT_EQ(S.FromRecord.size() + 1, S.FromAll.size());
}

} // namespace
} // namespace frontend
} // namespace tilefit
