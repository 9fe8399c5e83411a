// The CUDA check macro: a failing call becomes a CudaError naming the error and the expression,
// with the file and line in where() and never in the message; out of memory is a ConfigError, naming
// the size for a cudaMalloc (no device needed: the error codes are plain values, and the one real
// cudaMalloc accepts either outcome).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>

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

// A cudaMalloc that runs out names the size asked for, in units a user reads.
TEST(CudaCheck, OutOfMemoryInAMallocNamesTheSize) {
  const std::pair<uint64_t, std::string> cases[] = {{512, "512 bytes"}, {uint64_t{3} << 19, "1.5 MiB"}, {uint64_t{3} << 29, "1.50 GiB"}};
  for (const auto& [bytes, text] : cases) {
    try {
      ppsim::cuda_check_malloc(cudaErrorMemoryAllocation, bytes, __FILE__, __LINE__);
      FAIL() << "no exception";
    } catch (const ppsim::ConfigError& e) {
      EXPECT_EQ(std::string(e.what()), "the device ran out of memory (cudaMalloc of " + text + ")");
    }
  }
  EXPECT_NO_THROW(ppsim::cuda_check_malloc(cudaSuccess, 512, __FILE__, __LINE__));
}

// A real cudaMalloc far beyond any device: out of memory where there is a device, another CUDA
// error (no device, no driver) where there is none; either way one line without a source path.
TEST(CudaCheck, AnImpossibleMallocFailsWithoutASourcePath) {
  void* p = nullptr;
  const uint64_t petabyte = uint64_t{1} << 50;
  try {
    PPSIM_CUDA_MALLOC(&p, petabyte);
    FAIL() << "a petabyte of device memory";
  } catch (const ppsim::ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), "the device ran out of memory (cudaMalloc of 1048576.00 GiB)");
  } catch (const ppsim::CudaError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(" in cudaMalloc"), std::string::npos) << what;
    EXPECT_EQ(what.find(__FILE__), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    EXPECT_NE(e.where().find("test_cuda_check.cpp:"), std::string::npos) << e.where();
  }
}
