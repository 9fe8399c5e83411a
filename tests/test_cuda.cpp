// The CUDA backend: bit-identical to the CPU backend (buffers and every integer statistic, step by
// step) for every algorithm, several p (non-powers of two, p >= 2^16) and operators; backend
// selection and failure reporting. Device tests skip with the reason when no device is usable.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ppsim/algorithm.h"
#include "ppsim/cuda_backend.h"
#include "ppsim/engine.h"
#include "ppsim/run.h"
#include "test_helpers.h"

using namespace ppsim;

namespace {

const CudaStatus& status() {
  static const CudaStatus s = cuda_status();
  return s;
}

#define REQUIRE_DEVICE() \
  if (!status().usable) GTEST_SKIP() << "CUDA backend: " << status().why

RunConfig config_for(const AlgorithmInfo& a, int64_t p, OperatorKind k) {
  TopologyKind kind = TopologyKind::full;
  std::string dims;
  if (a.runs_on(TopologyKind::hypercube) && a.native_on(TopologyKind::hypercube) && is_pow2(p)) kind = TopologyKind::hypercube;
  if (!a.runs_on(TopologyKind::full)) {  // mesh algorithms
    kind = TopologyKind::torus;
    int64_t r = 1;
    for (int64_t x = 1; x * x <= p; ++x) if (p % x == 0) r = x;
    dims = std::to_string(r) + "x" + std::to_string(p / r);
  }
  RunConfig c = testing_support::make_config(a.name, kind, dims.empty() ? p : 0, dims, 3, k);
  if (a.sends_per_step > 1) c.ports = PortSpec{PortModel::kport, a.sends_per_step};
  if (a.needs_all_port()) c.ports = PortSpec{PortModel::all, kMaxOps};
  return c;
}

}  // namespace

TEST(CudaBackend, IdenticalToCpuForEveryAlgorithm) {
  REQUIRE_DEVICE();
  for (const auto& a : algorithms())
    for (int64_t p : {1, 5, 13, 64, 1000, 1 << 16})
      for (OperatorKind k : {OperatorKind::sum, OperatorKind::interval, OperatorKind::affine}) {
        if (a.op == Operation::allgather && p > 1000) continue;  // p^2 words
        RunConfig c = config_for(a, p, k);
        if (!algorithm_rejects(a, c.topology, c.params, k).empty()) continue;
        SCOPED_TRACE(std::string(a.name) + " p=" + std::to_string(p) + " " + operator_name(k));
        RunResult cpu = run_cpu(c), gpu = run_cuda(c);
        EXPECT_TRUE(gpu.verified);
        EXPECT_EQ(gpu.buffers, cpu.buffers);
        EXPECT_EQ(gpu.steps, cpu.steps);
        EXPECT_EQ(gpu.messages, cpu.messages);
        EXPECT_EQ(gpu.words, cpu.words);
        EXPECT_EQ(gpu.link_hops, cpu.link_hops);
        ASSERT_EQ(gpu.per_step.size(), cpu.per_step.size());
        for (size_t s = 0; s < cpu.per_step.size(); ++s) {
          EXPECT_EQ(gpu.per_step[s].messages, cpu.per_step[s].messages);
          EXPECT_EQ(gpu.per_step[s].words, cpu.per_step[s].words);
          EXPECT_EQ(gpu.per_step[s].link_hops, cpu.per_step[s].link_hops);
          EXPECT_EQ(gpu.per_step[s].max_link_load, cpu.per_step[s].max_link_load);
          EXPECT_EQ(gpu.per_step[s].time, cpu.per_step[s].time);
        }
      }
}

TEST(CudaBackend, PostalAndRoutedRunsMatchTheCpu) {
  REQUIRE_DEVICE();
  std::vector<RunConfig> configs;
  RunConfig a = testing_support::make_config("scan_postal_b", TopologyKind::full, 10, "", 1, OperatorKind::interval);
  a.params.n = 80; a.params.kports = 2; a.params.lambda = 3; a.ports = {PortModel::kport, 2};
  configs.push_back(a);
  configs.push_back(testing_support::make_config("allgather_hypercube", TopologyKind::ring, 64, "", 2));  // congestion
  RunConfig b = testing_support::make_config("allreduce_hypercube", TopologyKind::mesh, 0, "16x16", 4, OperatorKind::affine);
  b.params.lambda = 2;
  configs.push_back(b);
  for (const RunConfig& c : configs) {
    RunResult cpu = run_cpu(c), gpu = run_cuda(c);
    EXPECT_TRUE(gpu.verified) << c.algorithm->name;
    EXPECT_EQ(gpu.buffers, cpu.buffers) << c.algorithm->name;
    EXPECT_EQ(gpu.max_link_load, cpu.max_link_load) << c.algorithm->name;
  }
}

TEST(CudaBackend, ScheduleErrorsReadAsOnTheCpu) {
  REQUIRE_DEVICE();
  RunConfig c = testing_support::make_config("allgather_ring_bidirectional", TopologyKind::ring, 9);
  std::string cpu_error, gpu_error;
  try { run_cpu(c); } catch (const ScheduleError& e) { cpu_error = e.what(); }
  try { run_cuda(c); } catch (const ScheduleError& e) { gpu_error = e.what(); }
  EXPECT_FALSE(cpu_error.empty());
  EXPECT_EQ(gpu_error, cpu_error);
}

TEST(CudaBackend, RunsThatDoNotFitAreRefusedWithTheSizes) {
  REQUIRE_DEVICE();
  RunConfig c = testing_support::make_config("allgather_ring", TopologyKind::ring, 1 << 20, "", 1 << 10);
  try {
    run_cuda(c);
    FAIL() << "a 2^50-byte run was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("memory"), std::string::npos) << e.what();
  }
}

// Without a device: `cuda` is refused with the reason, `auto` falls back to the CPU with a notice.
TEST(BackendSelection, FallsBackToTheCpuWithANotice) {
  RunConfig c = testing_support::make_config("allreduce_hypercube", TopologyKind::hypercube, 16);
  std::string notice;
  RunResult r = run_simulation(c, Backend::automatic, &notice);
  EXPECT_TRUE(r.verified);
  if (status().usable) {
    EXPECT_EQ(r.backend, "cuda");
    EXPECT_TRUE(notice.empty());
    return;
  }
  EXPECT_EQ(r.backend, "cpu");
  EXPECT_EQ(notice, "ppsim: no usable CUDA device (" + status().why + "); running on the CPU");
  EXPECT_THROW(run_simulation(c, Backend::cuda), ConfigError);
  EXPECT_FALSE(status().why.empty());
}

TEST(BackendSelection, DeviceMemoryEstimateCoversTheBuffers) {
  if (!status().built) GTEST_SKIP() << status().why;
  RunConfig small = testing_support::make_config("allreduce_hypercube", TopologyKind::full, 1 << 10, "", 1);
  RunConfig large = testing_support::make_config("allreduce_hypercube", TopologyKind::full, 1 << 20, "", 256);
  EXPECT_GE(cuda_estimate_bytes(large), uint64_t{1 << 20} * 256 * 8);  // at least the data buffer
  EXPECT_GT(cuda_estimate_bytes(large), cuda_estimate_bytes(small));
}
