// The CUDA check macro: a failing call becomes a CudaError naming the error and the expression,
// with the file and line in where() and never in the message; out of memory is a ConfigError (no
// device needed: the error codes are plain values).
#include <gtest/gtest.h>

#include <string>

#include "cuda_check.h"

TEST(CudaCheck, ReportsTheErrorAndTheCallWithTheLineOutOfTheMessage) {
  int line = 0;
  try {
    line = __LINE__ + 1;
    PPSIM_CUDA_CHECK(cudaErrorInvalidValue);
    FAIL() << "no exception";
  } catch (const ppsim::CudaError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("cudaErrorInvalidValue in cudaErrorInvalidValue"), std::string::npos) << what;
    EXPECT_EQ(what.find(__FILE__), std::string::npos) << "a source path in a user's message: " << what;
    EXPECT_EQ(what.find(".cpp"), std::string::npos) << what;
    EXPECT_EQ(e.where(), std::string(__FILE__) + ":" + std::to_string(line));
  }
  EXPECT_NO_THROW(PPSIM_CUDA_CHECK(cudaSuccess));
}

// Device memory that runs out reads like the check before a run: a one-line ConfigError.
TEST(CudaCheck, OutOfMemoryIsAConfigError) {
  try {
    PPSIM_CUDA_CHECK(cudaErrorMemoryAllocation);
    FAIL() << "no exception";
  } catch (const ppsim::ConfigError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what, "the device ran out of memory (cudaErrorMemoryAllocation in cudaErrorMemoryAllocation)");
  }
}
