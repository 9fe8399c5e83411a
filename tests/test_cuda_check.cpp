// The CUDA check macro: a failing call becomes a CudaError naming the expression, file and line
// (no device needed: the error codes are plain values).
#include <gtest/gtest.h>

#include <string>

#include "cuda_check.h"

TEST(CudaCheck, ReportsExpressionFileAndLine) {
  int line = 0;
  try {
    line = __LINE__ + 1;
    PPSIM_CUDA_CHECK(cudaErrorInvalidValue);
    FAIL() << "no exception";
  } catch (const ppsim::CudaError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("cudaErrorInvalidValue"), std::string::npos) << what;
    EXPECT_NE(what.find("test_cuda_check.cpp:" + std::to_string(line)), std::string::npos) << what;
  }
  EXPECT_NO_THROW(PPSIM_CUDA_CHECK(cudaSuccess));
}
