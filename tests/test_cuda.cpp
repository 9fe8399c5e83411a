// The CUDA backend: bit-identical to the CPU backend (buffers and every integer statistic, step by
// step) for every algorithm, several p (non-powers of two, p >= 2^16) and operators; backend
// selection and failure reporting. Device tests skip with the reason when no device is usable.
#include <gtest/gtest.h>

#include <atomic>

#include <string>
#include <tuple>
#include <vector>

#include "ppsim/algorithm.h"
#include "ppsim/cuda_backend.h"
#include "ppsim/engine.h"
#include "algorithms/allreduce_hypercube.h"
#include "machine/topologies/routing.h"
#include "ppsim/run.h"
#include "study/sweep.h"
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
  if (!a.runs_on(TopologyKind::full) && a.runs_on(TopologyKind::cluster)) {  // the two-level clusters' own: nodes of 8, 4, 2 or 1
    kind = TopologyKind::cluster;
    int64_t g = 8;
    while (p % g != 0) g /= 2;
    dims = std::to_string(p / g) + "x" + std::to_string(g);
  } else if (!a.runs_on(TopologyKind::full)) {  // mesh algorithms
    kind = TopologyKind::torus;
    int64_t r = 1;
    for (int64_t x = 1; x * x <= p; ++x)
      if (p % x == 0) r = x;
    dims = std::to_string(r) + "x" + std::to_string(p / r);
  }
  RunConfig c = testing_support::make_config(a.name, kind, dims.empty() ? p : 0, dims, 3, k);
  if (a.sends_per_step > 1) c.ports = PortSpec{PortModel::kport, a.sends_per_step};
  if (a.needs_all_port()) c.ports = PortSpec{PortModel::all, kMaxOps};
  return c;
}

// Buffers and every integer statistic, run and step by step, equal those of the CPU backend.
void expect_identical(const RunResult& cpu, const RunResult& dev) {
  EXPECT_TRUE(dev.verified);
  EXPECT_EQ(dev.buffers, cpu.buffers);
  EXPECT_EQ(dev.steps, cpu.steps);
  EXPECT_EQ(dev.messages, cpu.messages);
  EXPECT_EQ(dev.words, cpu.words);
  EXPECT_EQ(dev.link_hops, cpu.link_hops);
  EXPECT_EQ(dev.max_link_load, cpu.max_link_load);
  EXPECT_EQ(dev.time, cpu.time);
  ASSERT_EQ(dev.per_step.size(), cpu.per_step.size());
  for (size_t s = 0; s < cpu.per_step.size(); ++s) {
    SCOPED_TRACE("step " + std::to_string(s + 1));
    EXPECT_EQ(dev.per_step[s].messages, cpu.per_step[s].messages);
    EXPECT_EQ(dev.per_step[s].words, cpu.per_step[s].words);
    EXPECT_EQ(dev.per_step[s].link_hops, cpu.per_step[s].link_hops);
    EXPECT_EQ(dev.per_step[s].max_link_load, cpu.per_step[s].max_link_load);
    EXPECT_EQ(dev.per_step[s].time, cpu.per_step[s].time);
  }
}

// Every algorithm, p in {1, 5, 13, 64, 1000, 2^16} (as far as `work` allows: rounds x p bodies and
// p x words of buffers), three operators (a commutative one, interval, affine); at p = 2^16 only
// interval (the strictest) when `big_interval_only`.
void every_algorithm(RunResult (*dev_run)(const RunConfig&), int64_t work, bool big_interval_only) {
  int compared = 0;
  for (const auto& a : algorithms())
    for (int64_t p : {1, 5, 13, 64, 1000, 1 << 16})
      for (OperatorKind k : {OperatorKind::sum, OperatorKind::interval, OperatorKind::affine}) {
        if (big_interval_only && p > 1000 && k != OperatorKind::interval) continue;
        RunConfig c = config_for(a, p, k);
        if (!algorithm_rejects(a, c.topology, c.params, k).empty()) continue;
        int64_t words = 0;
        for (int b = 0; b < run_buffer_count(c); ++b) words += run_buffer_words(c, b);
        if (int64_t(a.rounds(c.params)) * p > work || words * p > work) continue;
        SCOPED_TRACE(std::string(a.name) + " p=" + std::to_string(p) + " " + operator_name(k));
        expect_identical(run_cpu(c), dev_run(c));
        ++compared;
      }
  EXPECT_GT(compared, 3 * int(algorithms().size()));
}

// Postal latency, k ports, routed messages with congestion, a mapped (logical on physical) run.
std::vector<RunConfig> special_configs() {
  std::vector<RunConfig> configs;
  RunConfig a = testing_support::make_config("scan_postal_b", TopologyKind::full, 10, "", 1, OperatorKind::interval);
  a.params.n = 80;
  a.params.kports = 2;
  a.params.lambda = 3;
  a.ports = {PortModel::kport, 2};
  configs.push_back(a);
  configs.push_back(testing_support::make_config("allgather_hypercube", TopologyKind::ring, 64, "", 2));  // congestion
  RunConfig b = testing_support::make_config("allreduce_hypercube", TopologyKind::mesh, 0, "16x16", 4, OperatorKind::affine);
  b.params.lambda = 2;
  configs.push_back(b);
  RunConfig d = testing_support::make_config("broadcast_postal", TopologyKind::full, 200, "", 3, OperatorKind::interval);
  d.params.lambda = 4;
  d.params.kports = 3;
  d.ports = {PortModel::kport, 3};
  configs.push_back(d);
  RunConfig e = testing_support::make_config("alltoall_hypercube", TopologyKind::hypercube, 64, "", 2);
  e.mapped = true;
  e.mapping = Mapping{MapKind::gray, e.topology, make_topology(TopologyKind::mesh, 0, "8x8")};
  configs.push_back(e);
  // The trees with a processor at every node: routes through the lowest common ancestor.
  RunConfig f = testing_support::make_config("allgather_ring", TopologyKind::bintree, 63, "", 2, OperatorKind::interval);
  f.cost = CostParams{2, 1, 3, Routing::store_and_forward};
  configs.push_back(f);
  RunConfig g = testing_support::make_config("scan_hypercube", TopologyKind::binomial, 64, "", 3, OperatorKind::affine);
  g.ports = {PortModel::all, 1};
  configs.push_back(g);
  return configs;
}

}  // namespace

TEST(CudaBackend, IdenticalToCpuForEveryAlgorithm) {
  REQUIRE_DEVICE();
  every_algorithm(run_cuda, int64_t{1} << 28, false);
}

TEST(CudaBackend, PostalRoutedAndMappedRunsMatchTheCpu) {
  REQUIRE_DEVICE();
  for (const RunConfig& c : special_configs()) {
    SCOPED_TRACE(c.algorithm->name);
    expect_identical(run_cpu(c), run_cuda(c));
  }
}

TEST(CudaBackend, ScheduleErrorsReadAsOnTheCpu) {
  REQUIRE_DEVICE();
  RunConfig c = testing_support::make_config("allgather_ring_bidirectional", TopologyKind::ring, 9);
  std::string cpu_error, gpu_error;
  try {
    run_cpu(c);
  } catch (const ScheduleError& e) {
    cpu_error = e.what();
  }
  try {
    run_cuda(c);
  } catch (const ScheduleError& e) {
    gpu_error = e.what();
  }
  EXPECT_FALSE(cpu_error.empty());
  EXPECT_EQ(gpu_error, cpu_error);
}

// The same rounds, every body run on the host: the device logic checked in CI.
TEST(CudaRoundsOnHost, IdenticalToCpuForEveryAlgorithm) {
  every_algorithm([](const RunConfig& c) { return run_device_rounds_on_host(c); }, int64_t{1} << 22, true);
}

TEST(CudaRoundsOnHost, PostalRoutedAndMappedRunsMatchTheCpu) {
  for (const RunConfig& c : special_configs()) {
    SCOPED_TRACE(c.algorithm->name);
    RunResult dev = run_device_rounds_on_host(c);
    EXPECT_EQ(dev.backend, "cuda-host");
    expect_identical(run_cpu(c), dev);
  }
}

TEST(CudaRoundsOnHost, TraceMatchesTheCpu) {
  RunConfig c = testing_support::make_config("scan_postal_a", TopologyKind::full, 10, "", 1, OperatorKind::interval);
  c.params.kports = 2;
  c.params.lambda = 3;
  c.ports = {PortModel::kport, 2};
  c.trace = true;
  RunResult cpu = run_cpu(c), dev = run_device_rounds_on_host(c);
  ASSERT_EQ(dev.trace.size(), cpu.trace.size());
  for (size_t s = 0; s < cpu.trace.size(); ++s) {
    SCOPED_TRACE("step " + std::to_string(s));
    EXPECT_EQ(dev.trace[s].buffers, cpu.trace[s].buffers);
    ASSERT_EQ(dev.trace[s].messages.size(), cpu.trace[s].messages.size());
    for (size_t q = 0; q < cpu.trace[s].messages.size(); ++q) {
      const TraceMessage &x = dev.trace[s].messages[q], &y = cpu.trace[s].messages[q];
      EXPECT_EQ(std::tie(x.from, x.to, x.words, x.src_off, x.buf, x.sent, x.arrives),
                std::tie(y.from, y.to, y.words, y.src_off, y.buf, y.sent, y.arrives));
    }
  }
}

// Broken schedules, injected through the test hook: each is caught by the part of the device
// logic that owns the rule (count: invalid ops and port limits; match: a send nobody receives or
// of the wrong length; unmatched: a receive nobody sends; deliver: half-duplex and telephone), and
// reported in the CPU backend's words. A rule the device logic missed would throw nothing.
namespace broken {
void send_without_receive(const AlgoParams&, int64_t proc, int, StepOps& out) {
  if (proc == 0) out.add_send(1, 0, 0, 1);
}
void receive_without_send(const AlgoParams&, int64_t proc, int round, StepOps& out) {
  if (proc == 3 && round == 2) out.add_recv(2, 0, 0, 1, RecvMode::copy);
}
void length_mismatch(const AlgoParams&, int64_t proc, int, StepOps& out) {
  if (proc == 0) out.add_send(1, 0, 0, 1);
  if (proc == 1) out.add_recv(0, 0, 0, 2, RecvMode::copy);
}
void send_out_of_range(const AlgoParams&, int64_t proc, int, StepOps& out) {
  if (proc == 2) out.add_send(9, 0, 0, 1);
}
void exchange(const AlgoParams&, int64_t proc, int, StepOps& out) {  // 0 <-> 1: breaks half-duplex only
  if (proc < 2) {
    out.add_send(1 - proc, 0, 0, 1);
    out.add_recv(1 - proc, 0, 0, 1, RecvMode::copy);
  }
}
void send_to_one_receive_from_another(const AlgoParams&, int64_t proc, int, StepOps& out) {  // breaks telephone
  if (proc == 0) {
    out.add_send(1, 0, 0, 1);
    out.add_recv(2, 0, 0, 1, RecvMode::copy);
  }
  if (proc == 1) out.add_recv(0, 0, 0, 1, RecvMode::copy);
  if (proc == 2) out.add_send(0, 0, 0, 1);
}
}  // namespace broken

// The device can run a small run whole in one thread block (cuda/block_exec.h: one launch for the
// sizing pass, one for every step, the team's own scans and reductions), where PPSIM_ONE_BLOCK_MAX_P
// lets it (by default no run: a launch a step was faster wherever it was measured). The host executor runs
// that very code as a team of threads meeting at the same barriers: identical to the CPU backend
// for every algorithm (p + 1 = 2, 6, 14, 65 slots over 4 threads: chunks of every shape), and for
// postal, routed and mapped runs.
RunResult run_as_team(const RunConfig& c) {
  HostRoundsProbe probe;
  probe.team_threads = 4;
  return run_device_rounds_on_host(c, probe);
}
TEST(CudaRoundsOnHost, WholeRunsAsOneTeamMatchTheCpu) {
  every_algorithm(run_as_team, int64_t{1} << 13, true);
  for (const RunConfig& c : special_configs()) {
    SCOPED_TRACE(c.algorithm->name);
    expect_identical(run_cpu(c), run_as_team(c));
  }
}

// A run on the pull step whose rounds move their words one lane a processor can take one
// cooperative launch for all its steps (backend.cu's step_grid_run: every thread of the grid one
// lane of a team, the phases of a step meeting at grid-wide barriers). The host executor runs the
// same team code: past the one block's size (kWholeRunMaxP) such runs go that way, in one launch,
// and equal the CPU backend; on a routed topology, with the link counts, and through the ops
// dispatch as well as a listed unit's own ops.
TEST(CudaRoundsOnHost, PullRunsAsOneGridMatchTheCpu) {
  const int64_t p = int64_t{1} << 15;  // (the one block takes up to 2^14)
  for (const char* algo : {"allreduce_hypercube", "broadcast_binomial", "scan_hypercube", "reduce_binomial"})
    for (TopologyKind kind : {TopologyKind::full, TopologyKind::hypercube}) {
      SCOPED_TRACE(std::string(algo) + " on " + topology_name(kind));
      const RunConfig c = testing_support::make_config(algo, kind, p);
      HostRoundsProbe probe;
      probe.team_threads = 4;
      const RunResult r = run_device_rounds_on_host(c, probe);
      expect_identical(run_cpu(c), r);
      EXPECT_EQ(r.step_path, "pull");
      EXPECT_TRUE(probe.step_launches.empty());  // no step launched by itself
    }
  // A round of long messages (more words than a lane moves) keeps a launch a step.
  const RunConfig wide = testing_support::make_config("allreduce_hypercube", TopologyKind::full, p, "", 64);
  HostRoundsProbe probe;
  probe.team_threads = 4;
  expect_identical(run_cpu(wide), run_device_rounds_on_host(wide, probe));
  EXPECT_EQ(probe.step_launches.size(), size_t(15));
}

TEST(CudaRoundsOnHost, ScheduleErrorsReadAsOnTheCpu) {
  struct Case {
    void (*ops)(const AlgoParams&, int64_t, int, StepOps&);
    PortModel model;
  };
  for (Case k : {Case{broken::send_without_receive, PortModel::single}, Case{broken::receive_without_send, PortModel::single},
                 Case{broken::length_mismatch, PortModel::single}, Case{broken::send_out_of_range, PortModel::single},
                 Case{broken::exchange, PortModel::half_duplex}, Case{broken::send_to_one_receive_from_another, PortModel::telephone}}) {
    RunConfig c = testing_support::make_config("broadcast_binomial", TopologyKind::full, 4, "", 2);
    c.test_ops_override = k.ops;
    c.ports.model = k.model;
    std::string cpu_error, dev_error;
    try {
      run_cpu(c);
    } catch (const ScheduleError& e) {
      cpu_error = e.what();
    }
    try {
      run_device_rounds_on_host(c);
    } catch (const ScheduleError& e) {
      dev_error = e.what();
    }
    EXPECT_FALSE(cpu_error.empty());
    EXPECT_EQ(dev_error, cpu_error);
    std::string team_error;  // the whole run in one team (one thread block on the device)
    try {
      run_as_team(c);
    } catch (const ScheduleError& e) {
      team_error = e.what();
    }
    EXPECT_EQ(team_error, cpu_error);
  }
  // The exchange is legal under the telephone rule, on both.
  RunConfig ok = testing_support::make_config("broadcast_binomial", TopologyKind::full, 4, "", 2);
  ok.test_ops_override = broken::exchange;
  ok.ports.model = PortModel::telephone;
  ok.verify = false;
  EXPECT_NO_THROW(run_cpu(ok));
  EXPECT_NO_THROW(run_device_rounds_on_host(ok));
}

TEST(CudaBackend, RunsThatDoNotFitAreRefusedWithTheSizes) {
  REQUIRE_DEVICE();
  // 2^27 processors x 256 words: 256 GiB of buffers, more than any device has; the parameters are
  // fine, and with keep_buffers = false the host holds none of it: the device check must refuse.
  RunConfig c = testing_support::make_config("allreduce_hypercube", TopologyKind::full, 1 << 27, "", 256);
  c.keep_buffers = false;
  try {
    run_cuda(c);
    FAIL() << "a 256 GiB run was accepted";
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("of device memory"), std::string::npos) << what;
    EXPECT_NE(what.find(status().device), std::string::npos) << what;
  }
}

// Without a usable device: `cuda` is refused with the reason, `auto` falls back to the CPU, with a
// notice only when a GPU is there but cannot be used (a machine without one runs quietly). With
// one, `auto` keeps this quick run on the CPU without a word (its estimate is far under the
// device's start), and `cuda` runs it on the device.
TEST(BackendSelection, FallsBackToTheCpuWithANotice) {
  RunConfig c = testing_support::make_config("allreduce_hypercube", TopologyKind::hypercube, 16);
  std::string notice;
  RunResult r = run_simulation(c, Backend::automatic, &notice);
  EXPECT_TRUE(r.verified);
  EXPECT_EQ(r.backend, "cpu");
  if (status().usable) {
    EXPECT_TRUE(notice.empty()) << notice;
    const RunResult on_device = run_simulation(c, Backend::cuda);
    EXPECT_EQ(on_device.backend, "cuda");
    EXPECT_TRUE(on_device.verified);
    return;
  }
  if (status().device_present) EXPECT_EQ(notice, "ppsim: no usable CUDA device (" + status().why + "); running on the CPU");
  else EXPECT_TRUE(notice.empty()) << notice;
  EXPECT_THROW(run_simulation(c, Backend::cuda), ConfigError);
  EXPECT_FALSE(status().why.empty());
}

// The device verification counts exactly the words the host reference counts: for one algorithm
// of every operation, non-commutative operators, exclusive and n > p scans, clean and with words
// corrupted anywhere in every buffer (checked words and words the reference ignores alike).
TEST(DeviceVerification, CountsWhatTheHostReferenceCounts) {
  struct Setup {
    const char* algo;
    TopologyKind kind;
    int64_t p;
  };
  const Setup setups[] = {{"broadcast_binomial", TopologyKind::full, 13},
                          {"reduce_binomial", TopologyKind::full, 13},
                          {"allreduce_hypercube", TopologyKind::hypercube, 16},
                          {"allgather_ring", TopologyKind::ring, 7},
                          {"gather_binomial", TopologyKind::full, 13},
                          {"scatter_binomial", TopologyKind::full, 13},
                          {"scan_ring", TopologyKind::ring, 9},
                          {"scan_postal_b", TopologyKind::full, 6},
                          {"reduce_scatter_ring", TopologyKind::ring, 7},
                          {"alltoall_ring", TopologyKind::ring, 5},
                          {"multicast_binomial", TopologyKind::full, 12},
                          {"kbroadcast_hypercube", TopologyKind::hypercube, 8},
                          {"kscatter_hypercube", TopologyKind::hypercube, 8},
                          {"shift_ring", TopologyKind::ring, 9}};
  uint64_t rng = 0x9e3779b97f4a7c15ull;
  auto next = [&rng]() {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
  };
  int checked = 0;
  for (const Setup& s : setups)
    for (OperatorKind k : {OperatorKind::sum, OperatorKind::interval, OperatorKind::affine})
      for (int variant = 0; variant < 2; ++variant) {
        RunConfig c = testing_support::make_config(s.algo, s.kind, s.p, "", 3, k, 0);
        const Operation op = c.algorithm->op;
        if (op == Operation::scan && variant == 1) {
          if (std::string(s.algo) == "scan_ring") c.params.exclusive = true;
          else {
            c.params.n = 20;
            c.params.kports = 2;
            c.params.lambda = 2;
            c.ports = {PortModel::kport, 2};
          }
        }
        if (op == Operation::multicast) {
          c.params.group_stride = 5;
          c.params.group_size = 6;
        }
        if (op == Operation::kbroadcast || op == Operation::kscatter) c.params.sources = 4;
        if (op == Operation::shift) c.params.shift = 4;
        if (variant == 1 && op != Operation::scan) c.input = InputSpec{true, 777};
        if (!algorithm_rejects(*c.algorithm, c.topology, c.params, k).empty()) continue;
        SCOPED_TRACE(std::string(s.algo) + " " + operator_name(k) + " variant " + std::to_string(variant));
        RunResult r = run_cpu(c);
        ASSERT_TRUE(r.verified);
        EXPECT_EQ(device_mismatches_on_host(c, r.buffers), 0);
        std::vector<std::vector<uint64_t>> bad = r.buffers;
        for (int n = 0; n < 12; ++n) {
          auto& buf = bad[next() % bad.size()];
          buf[next() % buf.size()] ^= uint64_t{1} << (next() % 40);
        }
        const int64_t want = verify_buffers(c, bad).mismatches;
        EXPECT_EQ(device_mismatches_on_host(c, bad), want);
        checked += want > 0;
      }
  EXPECT_GT(checked, 40);  // most corruptions hit checked words
}

// Failures on the device: the messages dropped and rerouted, and the damage with its
// first mismatches counted where the buffers are (keep_buffers = false), equal the CPU's; so does
// the verdict from the buffers brought back. The damage spans several of the device's blocks of
// 1,024 processors, with a block between them that has none.
TEST(CudaBackend, FailuresEqualTheCpu) {
  REQUIRE_DEVICE();
  const int64_t p = 4096;
  auto proc = [](int64_t i, int64_t step) {
    Failures f;
    f.proc[f.nproc++] = FailedProc{i, step};
    return f;
  };
  const Topology cube = make_topology(TopologyKind::hypercube, p, "");
  auto link = [&](int64_t a, int64_t b, int64_t step, bool reroute) {
    Failures f;
    f.link[f.nlink++] = FailedLink{a, b, step, topology_link_between(cube, a, b), topology_link_between(cube, b, a)};
    f.reroute = reroute;
    return f;
  };
  const Failures cases[] = {proc(1, 1), proc(3000, 12), proc(77, 6), link(0, 1, 1, false), link(5, 7, 1, true)};
  for (const Failures& f : cases)
    for (bool keep : {false, true}) {
      RunConfig c = testing_support::make_config("allreduce_hypercube", TopologyKind::hypercube, p, "", 3, OperatorKind::affine);
      c.failures = f;
      c.keep_buffers = keep;
      SCOPED_TRACE((f.nproc ? "proc " + std::to_string(f.proc[0].proc) : "link " + std::to_string(f.link[0].a)) + (keep ? " kept" : ""));
      const RunResult cpu = run_cpu(c), dev = run_cuda(c);
      ASSERT_EQ(cpu.per_step.size(), dev.per_step.size());
      int64_t touched = 0;  // messages dropped or rerouted (the run's totals are run_simulation's to sum)
      for (size_t t = 0; t < cpu.per_step.size(); ++t) {
        touched += cpu.per_step[t].dropped + cpu.per_step[t].rerouted;
        EXPECT_EQ(cpu.per_step[t].messages, dev.per_step[t].messages);
        EXPECT_EQ(cpu.per_step[t].dropped, dev.per_step[t].dropped);
        EXPECT_EQ(cpu.per_step[t].rerouted, dev.per_step[t].rerouted);
        EXPECT_EQ(cpu.per_step[t].time, dev.per_step[t].time);
      }
      EXPECT_EQ(cpu.verified, dev.verified);
      EXPECT_EQ(cpu.mismatches, dev.mismatches);
      EXPECT_EQ(cpu.results_agree, dev.results_agree);
      ASSERT_EQ(cpu.damage.size(), dev.damage.size());
      for (size_t i = 0; i < cpu.damage.size(); ++i)
        EXPECT_TRUE(cpu.damage[i].proc == dev.damage[i].proc && cpu.damage[i].missing == dev.damage[i].missing &&
                    cpu.damage[i].wrong == dev.damage[i].wrong)
            << "damage #" << i;
      ASSERT_EQ(cpu.first_mismatches.size(), dev.first_mismatches.size());
      for (size_t i = 0; i < cpu.first_mismatches.size(); ++i) {
        const Mismatch &x = cpu.first_mismatches[i], &y = dev.first_mismatches[i];
        EXPECT_TRUE(x.buf == y.buf && x.proc == y.proc && x.word == y.word && x.expected == y.expected && x.got == y.got) << "#" << i;
      }
      EXPECT_GT(touched, 0);
    }
}

// keep_buffers = false: the figures and the verdict come back, the buffers do not (both backends),
// except when verification fails and the report needs them.
TEST(DeviceVerification, BuffersStayBehindUnlessNeeded) {
  RunConfig c = testing_support::make_config("allreduce_hypercube", TopologyKind::hypercube, 64, "", 4, OperatorKind::affine);
  c.keep_buffers = false;
  RunResult cpu = run_cpu(c), dev = run_device_rounds_on_host(c);
  EXPECT_TRUE(cpu.verified);
  EXPECT_TRUE(dev.verified);
  EXPECT_TRUE(cpu.buffers.empty());
  EXPECT_TRUE(dev.buffers.empty());
  EXPECT_EQ(dev.words, cpu.words);
  EXPECT_EQ(dev.time, cpu.time);
}

// The device backend's promise: a run reads back from the device once on the pull step (at the
// end: the broken-rule word, the rounds' figures and the verification count) and once more on the
// records (after sizing: the rounds' totals with the broken-rule word), however many steps it has;
// the steps in between never wait for the host. Checked on the host executor, which counts the reads.
TEST(CudaRoundsOnHost, StepsNeverWaitForTheHost) {
  std::vector<int64_t> waits;
  for (int64_t p : {int64_t{4}, int64_t{64}, int64_t{1} << 12}) {
    for (int lambda : {1, 3}) {
      RunConfig c = testing_support::make_config("allreduce_hypercube", TopologyKind::hypercube, p, "", 2, OperatorKind::interval);
      c.params.lambda = lambda;
      c.keep_buffers = false;
      int64_t n = -1;
      RunResult r = run_device_rounds_on_host(c, &n);
      EXPECT_TRUE(r.verified);
      EXPECT_EQ(r.steps, ceil_log2(p) * lambda);
      waits.push_back(n);
    }
  }
  for (int64_t n : waits) EXPECT_EQ(n, waits.front()) << "reads back depend on the number of steps";
  EXPECT_EQ(waits.front(), 1);  // on the pull step: the rule, the figures and the verification count, at the end
}

// --backend auto keeps on the CPU the runs it finishes before a process would have started its
// device: the CPU backend's lower bound on its own time (estimate_run_seconds) decides, so small
// runs stay (a 2^12 allreduce: 0.2 ms by the bound) and large ones go (2^24: 1.7 s).
TEST(BackendSelection, AutoKeepsQuickRunsOnTheCpu) {
  const RunConfig small = testing_support::make_config("allreduce_hypercube", TopologyKind::full, 1 << 12, "", 1);
  const RunConfig large = testing_support::make_config("allreduce_hypercube", TopologyKind::full, 1 << 24, "", 1);
  EXPECT_LT(estimate_run_seconds(small), kDeviceStartSeconds);
  EXPECT_TRUE(auto_prefers_cpu(small));
  EXPECT_GT(estimate_run_seconds(large), kDeviceStartSeconds);
  EXPECT_FALSE(auto_prefers_cpu(large));
  EXPECT_EQ(run_simulation(small, Backend::automatic).backend, "cpu");  // with a GPU or without
}

// A sweep under --backend auto sends its quick points (the CPU backend's lower bound under
// kDevicePointSeconds) to CPU threads and the rest to the GPU; --backend cuda sends every point.
TEST(BackendSelection, SweepsSendQuickPointsToTheCpu) {
  study::SweepPoint quick, long_point;
  quick.config = testing_support::make_config("allreduce_hypercube", TopologyKind::full, 1 << 10, "", 1);
  long_point.config = testing_support::make_config("allreduce_hypercube", TopologyKind::full, 1 << 20, "", 16);
  ASSERT_LT(estimate_run_seconds(quick.config), kDevicePointSeconds);
  ASSERT_GE(estimate_run_seconds(long_point.config), kDevicePointSeconds);
  EXPECT_FALSE(study::runs_on_device(quick, true));
  EXPECT_TRUE(study::runs_on_device(long_point, true));
  EXPECT_FALSE(study::runs_on_device(long_point, false));  // no usable device
  quick.backend = Backend::cuda;
  EXPECT_TRUE(study::runs_on_device(quick, true));
}

// What a run on the pull step asks of a device, counted on the host executor (the one-pass step's
// targets): one launch a step (the last also settles the buffers' generations), no sizing pass, at
// most 10 launches outside the steps (the buffers' first words, one zeroing, and the verification's
// input, 2 tree-fold passes and check at p = 2^10), one read back, two evaluations of each processor's ops a round (its own and its
// sender's: recursive doubling has one sender), and no allocation the second time in a process.
TEST(CudaRoundsOnHost, PullStepAsksLittleOfTheDevice) {
  RunConfig c = testing_support::make_config("allreduce_hypercube", TopologyKind::full, 1 << 10, "", 1, OperatorKind::interval);
  c.keep_buffers = false;
  static std::atomic<int64_t> evaluations{0};
  c.test_ops_override = [](const AlgoParams& a, int64_t proc, int round, StepOps& out) {
    evaluations.fetch_add(1);
    AllreduceHypercube::ops(a, proc, round, out);
  };
  HostRoundsProbe first, second;
  const RunResult r = run_device_rounds_on_host(c, first);
  const int64_t counted = evaluations.exchange(0);
  EXPECT_TRUE(r.verified);
  EXPECT_EQ(r.step_path, "pull");
  ASSERT_EQ(int64_t(first.step_launches.size()), r.steps);
  for (size_t t = 0; t + 1 < first.step_launches.size(); ++t) EXPECT_EQ(first.step_launches[t], 1) << "step " << t + 1;
  EXPECT_EQ(first.step_launches.back(), 2);  // and the settling of the buffers' generations, after the last
  int64_t in_steps = 0;
  for (int64_t n : first.step_launches) in_steps += n;
  EXPECT_LE(first.launches - in_steps, 10);
  EXPECT_EQ(first.host_waits, 1);
  // (the host also asks a sample of at most 64 processors a round for the round's width)
  EXPECT_LE(counted, 2 * c.params.p * r.steps + 64 * r.steps);
  EXPECT_GE(counted, 2 * c.params.p * r.steps);
  EXPECT_TRUE(run_device_rounds_on_host(c, second).verified);
  EXPECT_EQ(second.allocations, 0);
}

// On a routed topology a round whose messages each cross one link needs no link counters: its
// link from a to b carries exactly a's messages to b, as on a direct-link topology; nor does a
// round on the hypercube whose messages all cross one XOR distance. The host guesses such rounds
// from a sample of processors; every guess is checked (PullTally::multi), and a
// round that proves it wrong is costed again with its loads counted (one more read back).
TEST(CudaRoundsOnHost, RoutedRoundsGuessOneHopAndCheckTheGuess) {
  struct Case {
    const char* algo;
    TopologyKind kind;
    int64_t p;
  };
  // Recursive doubling on the hypercube and the ring all-gather on the ring: every round one hop,
  // one launch a step (the last also settles the generations), no counters.
  for (const Case k : {Case{"allreduce_hypercube", TopologyKind::hypercube, 1 << 10}, Case{"allgather_ring", TopologyKind::ring, 200}}) {
    SCOPED_TRACE(k.algo);
    RunConfig c = testing_support::make_config(k.algo, k.kind, k.p, "", 2, OperatorKind::interval);
    c.keep_buffers = false;  // (verified where the buffers are: one read back)
    HostRoundsProbe probe;
    const RunResult r = run_device_rounds_on_host(c, probe);
    expect_identical(run_cpu(c), r);
    ASSERT_EQ(int64_t(probe.step_launches.size()), r.steps);
    for (size_t t = 0; t + 1 < probe.step_launches.size(); ++t) EXPECT_EQ(probe.step_launches[t], 1) << "step " << t + 1;
    EXPECT_EQ(probe.host_waits, 1);
  }
  // The E-cube all-to-all: round k crosses popcount(k) links, every message the XOR distance k, so
  // every round guesses (rules::sends_xor_distance): one launch a step, no round costed again.
  {
    RunConfig c = testing_support::make_config("alltoall_xor_ecube", TopologyKind::hypercube, 64, "", 1, OperatorKind::interval);
    c.keep_buffers = false;
    HostRoundsProbe probe;
    const RunResult r = run_device_rounds_on_host(c, probe);
    expect_identical(run_cpu(c), r);
    RunConfig records = c;
    records.step_path = StepPath::records;
    expect_identical(run_cpu(records), r);
    ASSERT_EQ(int64_t(probe.step_launches.size()), r.steps);
    for (int64_t t = 1; t < r.steps; ++t) EXPECT_EQ(probe.step_launches[size_t(t - 1)], 1) << "step " << t;
    EXPECT_EQ(probe.host_waits, 1);
  }
  // Every round made to guess: the routed runs whose messages cross several links (congestion,
  // postal latency on a mesh, a mapped run, a tree, the E-cube all-to-all, link classes) are costed
  // again round by round, and give the CPU's report.
  std::vector<RunConfig> configs;
  for (const RunConfig& c : special_configs())
    if (!direct_links(physical_topology(c))) configs.push_back(c);
  configs.push_back(testing_support::make_config("alltoall_xor_ecube", TopologyKind::hypercube, 64, "", 1, OperatorKind::interval));
  RunConfig classes = testing_support::make_config("allreduce_hypercube", TopologyKind::torus, 0, "4x4", 3, OperatorKind::affine);
  classes.cost.set_class_tw(1, 7);
  configs.push_back(classes);
  ASSERT_GE(configs.size(), size_t(6));
  for (const RunConfig& c : configs) {
    SCOPED_TRACE(std::string(c.algorithm->name) + " on " + topology_name(physical_topology(c).kind));
    HostRoundsProbe probe;
    probe.guess_every_round = true;
    const RunResult r = run_device_rounds_on_host(c, probe);
    expect_identical(run_cpu(c), r);
    if (r.step_path == "pull") {
      EXPECT_GT(probe.host_waits, 1) << "a round that crosses several links is costed again";
    }
  }
}

// What the CPU backend would hold on the host does not stop a device run: the parameters of a
// 256 GiB allreduce are valid for the CUDA backend (which checks device memory itself), while the
// CPU backend's estimate counts the buffers and a step's payloads.
TEST(BackendSelection, HostMemoryIsTheCpuBackendsCheck) {
  RunConfig c = testing_support::make_config("allreduce_hypercube", TopologyKind::full, 1 << 27, "", 256);
  c.keep_buffers = false;
  EXPECT_NO_THROW(validate_config(c, false));
  EXPECT_GE(estimate_run_bytes(c), 2 * (uint64_t{1} << 27) * 256 * 8);
  try {
    require_host_memory(uint64_t{1} << 62, "a test");
    FAIL() << "4 EiB accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("of memory (a test) but only"), std::string::npos) << e.what();
  }
}

// A plain run (docs/DESIGN.md §2: hops of a few instructions, no mapping, one link class, no
// all-port checks, every round guessed) takes its units' plain bodies, which ask no route question;
// the same run on the units' other bodies (PPSIM_PLAIN=0 on the device) gives the same report and
// buffers, and so does the CPU. A run with link classes, or with rounds that count their link
// loads, is not plain; a plain run whose guess its messages break is costed again, as before.
TEST(CudaRoundsOnHost, PlainRunsGiveWhatTheUnitsOtherBodiesGive) {
  struct Case {
    const char* algo;
    TopologyKind kind;
    int64_t p;
    const char* dims;
    bool plain;
  };
  RunConfig classes = testing_support::make_config("allreduce_hypercube", TopologyKind::torus, 0, "4x4", 3, OperatorKind::affine);
  classes.cost.set_class_tw(1, 7);
  for (const Case k : {Case{"allreduce_hypercube", TopologyKind::full, 1 << 10, "", true}, Case{"allreduce_hypercube", TopologyKind::hypercube, 256, "", true},
                       Case{"allgather_ring", TopologyKind::ring, 200, "", true}, Case{"alltoall_xor_ecube", TopologyKind::hypercube, 64, "", true},
                       Case{"broadcast_binomial", TopologyKind::mesh, 0, "4x8", false}, Case{"allreduce_hypercube", TopologyKind::torus, 0, "4x4", false}}) {
    SCOPED_TRACE(std::string(k.algo) + " on " + topology_name(k.kind));
    RunConfig c = testing_support::make_config(k.algo, k.kind, k.p, k.dims, 2, OperatorKind::affine);
    if (k.kind == TopologyKind::torus) c = classes;  // (link classes: costed link by link)
    HostRoundsProbe plain, other;
    other.plain = false;
    const RunResult a = run_device_rounds_on_host(c, plain), b = run_device_rounds_on_host(c, other);
    expect_identical(run_cpu(c), a);
    expect_identical(a, b);
    EXPECT_EQ(plain.plain_passes > 0, k.plain);
    EXPECT_EQ(other.plain_passes, 0);
  }
  // Every round made to guess on a mesh, where recursive doubling's messages cross several links:
  // the plain bodies tally the broken guesses, and the rounds are costed again link by link.
  RunConfig c = testing_support::make_config("allreduce_hypercube", TopologyKind::mesh, 0, "4x4", 2, OperatorKind::affine);
  HostRoundsProbe probe;
  probe.guess_every_round = true;
  const RunResult r = run_device_rounds_on_host(c, probe);
  expect_identical(run_cpu(c), r);
  EXPECT_GT(probe.plain_passes, 0);
  EXPECT_GT(probe.host_waits, 1) << "a round that crosses several links is costed again";
}

// The lanes: with messages of 16 words the device moves them with a warp per processor (a block
// from 2048 words). Run here as 4 or 32 threads per processor meeting at the same barriers, every
// algorithm still gives the CPU backend's buffers and figures: the lane arithmetic (strided
// words, lane 0's records, barriers between a receive's actions) is checked without a GPU.
TEST(CudaRoundsOnHost, LanesAsThreadsMatchTheCpu) {
  int compared = 0;
  for (const auto& a : algorithms())
    for (int64_t p : {5, 16}) {
      const int64_t m = a.needs_m_divisible_by_p() ? 16 * p : 16;
      RunConfig c = config_for(a, p, OperatorKind::interval);
      c.params.m = m;
      if (!algorithm_rejects(a, c.topology, c.params, c.combine).empty()) continue;
      SCOPED_TRACE(std::string(a.name) + " p=" + std::to_string(p));
      expect_identical(run_cpu(c), run_device_rounds_on_host(c, nullptr, p == 5 ? 4 : 32));
      ++compared;
    }
  EXPECT_GT(compared, int(algorithms().size()));
  RunConfig big = testing_support::make_config("allreduce_hypercube", TopologyKind::hypercube, 8, "", 4096, OperatorKind::affine);
  expect_identical(run_cpu(big), run_device_rounds_on_host(big, nullptr, 8));  // a block per processor
}

// Since 4c1b96a (2026-11-23) the memory a device run asks for before it allocates is what it then takes. The host
// executor counts its arrays: at the end of the run (everything alive: buffers, link counters,
// stores, peaks, the verification's table and counter) they hold exactly what was live at the
// check plus the figure checked; a budget one byte short of that is refused with the figure, and
// the exact budget runs. Cases: verified where the buffers are (allreduce: the fold table borrows
// the message pool; scan with n > p: its two tables do not fit there), kept on the host, routed
// links, and a postal algorithm with lambda stores.
TEST(CudaRoundsOnHost, MemoryCheckedIsMemoryTaken) {
  struct Case {
    const char* algo;
    TopologyKind kind;
    int64_t p, m;
    bool keep_buffers;
    int lambda;
    int64_t n;
  };
  for (const Case k :
       {Case{"allreduce_hypercube", TopologyKind::full, 64, 4, false, 1, 0}, Case{"scan_postal_b", TopologyKind::full, 16, 2, false, 1, 40},
        Case{"allgather_ring", TopologyKind::ring, 12, 3, true, 1, 0},
        Case{"alltoall_xor_ecube", TopologyKind::hypercube, 32, 2, false, 1, 0},
        Case{"scan_postal_a", TopologyKind::full, 20, 1, false, 3, 0}}) {
    SCOPED_TRACE(k.algo);
    RunConfig c = testing_support::make_config(k.algo, k.kind, k.p, "", k.m);
    c.keep_buffers = k.keep_buffers;
    c.params.lambda = k.lambda;
    if (k.n > 0) c.params.n = k.n;
    HostRoundsProbe free_run;
    EXPECT_TRUE(run_device_rounds_on_host(c, free_run).verified);
    EXPECT_GT(free_run.required_bytes, uint64_t(c.params.p * c.params.m) * 8);
    EXPECT_EQ(free_run.peak_bytes, free_run.live_at_require + free_run.required_bytes);
    HostRoundsProbe tight;
    tight.budget_bytes = free_run.live_at_require + free_run.required_bytes;
    EXPECT_TRUE(run_device_rounds_on_host(c, tight).verified);
    HostRoundsProbe short_by_one;
    short_by_one.budget_bytes = tight.budget_bytes - 1;
    try {
      run_device_rounds_on_host(c, short_by_one);
      ADD_FAILURE() << "a run one byte over its budget was accepted";
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("needs about " + std::to_string(free_run.required_bytes) + " bytes"), std::string::npos)
          << e.what();
    }
  }
}
