//===- CliFixture.h - Running the built tilefit in tests --------*- C++ -*-===//
#ifndef TILEFIT_TESTS_CLIFIXTURE_H
#define TILEFIT_TESTS_CLIFIXTURE_H

#include "../support/TestSupport.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace tilefit {
namespace test {

/// A plain kernel with 256 bytes of shared memory (the good unit beside a bad
/// one).
inline const char GoodKernel[] = R"(
__global__ void good(float *o) {
  __shared__ float s[64];
  s[threadIdx.x % 64] = o[threadIdx.x];
  __syncthreads();
  o[threadIdx.x] = s[(threadIdx.x + 1) % 64];
}
)";

class CliTest : public TempDirTest {
protected:
  CommandResult tilefit(std::vector<std::string> Args) {
    Args.insert(Args.begin(), binary());
    return runCommand(Args, Dir);
  }

  static nlohmann::json json(const CommandResult &R) {
    try {
      return nlohmann::json::parse(R.Out);
    } catch (const std::exception &E) {
      ADD_FAILURE() << "not JSON: " << E.what() << "\n" << R.Out << R.Err;
      return {};
    }
  }
};

} // namespace test
} // namespace tilefit

#endif
