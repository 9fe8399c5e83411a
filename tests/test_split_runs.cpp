// The identity of a split run: a run split across N MPI ranks gives the same report and the same final
// buffers as one process (docs/DESIGN.md §8, "Past one process"). Started by CTest under
// `mpirun -np N` (N = 2, 3, 4): for every configuration rank 0 first runs it in one process, then
// every rank runs it split, and rank 0 compares the two JSON reports (the wall times aside; the
// final buffers are in them where the run is small) and, for a refused or failing configuration,
// the one line each gave. The device rounds split the same way (--backend cuda, a device per
// rank) are checked here on the host executor (cuda/host_rounds.cpp), which runs the same round
// bodies and the same exchange: their split reports equal one process's run of the device rounds.
//
// The configurations: every registered algorithm on every topology it runs on, at a p that is no
// power of two where the topology allows (so blocks are uneven), with the strict operators
// (interval, or sum where the algorithm needs a commutative one, and affine on random input),
// plus every model a report depends on: congestion on routed links, store-and-forward with t_h,
// postal latency, k-port, link classes, LogGP, logical-on-physical mappings, switch agents, and
// the rounded operators' figures.
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dist/world.h"
#include "ppsim/algorithm.h"
#include "ppsim/cuda_backend.h"
#include "ppsim/engine.h"
#include "ppsim/report.h"
#include "ppsim/run.h"

using namespace ppsim;
using nlohmann::json;

namespace {

struct Case {
  std::string name;
  RunConfig c;
};

// The shape the registry suite gives a topology that takes --dims, or p.
std::string dims_for(TopologyKind kind, int64_t p) {
  switch (kind) {
    case TopologyKind::fattree: return "3x2";
    case TopologyKind::dragonfly: return "2x1x1";
    case TopologyKind::cluster: return "3x2x2";
    case TopologyKind::cluster_fattree: return "3x2x1";
    case TopologyKind::mesh:
    case TopologyKind::torus: return p == 13 ? "" : "3x4";
    default: return "";
  }
}

int64_t p_for(TopologyKind kind) {
  switch (kind) {
    case TopologyKind::hypercube:
    case TopologyKind::tree:
    case TopologyKind::binomial: return 16;
    case TopologyKind::bintree: return 15;
    case TopologyKind::mesh:
    case TopologyKind::torus: return 12;
    default: return 13;
  }
}

// A configuration as the registry suite (test_algorithms.cpp) builds one.
bool make_case(const AlgorithmInfo& a, TopologyKind kind, int64_t p, const std::string& dims, OperatorKind op, bool random, RunConfig& c) {
  try {
    c = RunConfig{};
    c.topology = make_topology(kind, dims.empty() ? p : 0, dims);
    p = c.topology.p;
    c.algorithm = &a;
    const int64_t m = a.needs_m_divisible_by_p() ? 2 * p : 3;
    c.params = params_for(c.topology, m, operation_rooted(a.op) && p > 2 ? p / 2 + 1 : 0);
    c.combine = op;
    c.threads = 1;
    c.params.shift = p > 2 ? p / 2 + 1 : 1;
    if (a.op == Operation::multicast) {
      c.params.group_stride = 2;
      c.params.group_size = p % 2 == 1 ? (p + 1) / 2 : p / 2;
    }
    if (a.op == Operation::kbroadcast || a.op == Operation::kscatter) c.params.sources = is_pow2(p) ? std::min<int64_t>(4, p) : 1;
    c.input = InputSpec{random, 777};
    if (a.sends_per_step > 1) c.ports = PortSpec{PortModel::kport, a.sends_per_step};
    if (a.needs_all_port()) c.ports = PortSpec{PortModel::all, kMaxOps};
    c.keep_buffers = true;
  } catch (const std::exception&) {
    return false;  // a shape the topology does not take
  }
  return true;
}

std::vector<Case> cases() {
  std::vector<Case> out;
  auto add = [&](const std::string& name, const RunConfig& c) { out.push_back({name, c}); };
  for (const AlgorithmInfo& a : algorithms())
    for (int k = 0; k < kTopologyCount; ++k) {
      const auto kind = TopologyKind(k);
      if (!a.runs_on(kind)) continue;
      const int64_t p = p_for(kind);
      const OperatorKind strict = a.commutative_only() ? OperatorKind::sum : OperatorKind::interval;
      RunConfig c;
      const std::string base = std::string(a.name) + " on " + topology_name(kind);
      if (make_case(a, kind, p, dims_for(kind, p), strict, false, c)) add(base, c);
      if (!a.commutative_only() && make_case(a, kind, p, dims_for(kind, p), OperatorKind::affine, true, c)) add(base + ", affine", c);
      // Rounded sums: the ulp error and whether processors agree, over blocks.
      if (a.native_on(kind) && make_case(a, kind, p, dims_for(kind, p), OperatorKind::fsum, true, c)) add(base + ", fsum", c);
    }
  // The cost models, on routed topologies where the loads of links cross ranks.
  const AlgorithmInfo* ring_ag = find_algorithm("allgather_ring");
  const AlgorithmInfo* hc_ar = find_algorithm("allreduce_hypercube");
  const AlgorithmInfo* mesh_a2a = find_algorithm("alltoall_mesh");
  RunConfig c;
  if (make_case(*hc_ar, TopologyKind::hypercube, 32, "", OperatorKind::interval, false, c)) {
    RunConfig ring = c;  // the hypercube's all-reduce on a ring: congestion (Fig. 4-12)
    ring.mapped = true;
    ring.mapping = Mapping{MapKind::gray, c.topology, make_topology(TopologyKind::ring, 32, "")};
    add("allreduce_hypercube mapped onto a ring", ring);
    RunConfig saf = ring;
    saf.cost.routing = Routing::store_and_forward;
    saf.cost.th = 0.5;
    saf.cost.gamma = 0.25;
    add("the same, store-and-forward with t_h and gamma", saf);
    RunConfig postal = c;
    postal.params.lambda = 3;
    add("allreduce_hypercube, lambda = 3", postal);
    RunConfig loggp = c;
    loggp.cost.model = CostModel::loggp;
    add("allreduce_hypercube under LogGP", loggp);
  }
  if (make_case(*ring_ag, TopologyKind::mesh, 0, "4x5", OperatorKind::interval, false, c)) {
    c.params.m = 5;
    add("allgather_ring on a 4x5 mesh", c);
  }
  if (make_case(*mesh_a2a, TopologyKind::torus, 0, "3x5", OperatorKind::bxor, true, c)) add("alltoall_mesh on a 3x5 torus", c);
  if (const AlgorithmInfo* nvls = find_algorithm("allreduce_nvls");
      nvls && make_case(*nvls, TopologyKind::cluster, 0, "4x4x2", OperatorKind::affine, false, c)) {
    c.cost.set_class_tw(0, 0.25);
    add("allreduce_nvls on 4x4x2 with a link class's t_w (switch agents)", c);
  }
  if (const AlgorithmInfo* postal_a = find_algorithm("scan_postal_a");
      postal_a && make_case(*postal_a, TopologyKind::full, 40, "", OperatorKind::interval, false, c)) {
    c.params.lambda = 3;
    c.params.kports = 2;
    c.ports = PortSpec{PortModel::kport, 2};
    add("scan_postal_a, k = 2, lambda = 3", c);
  }
  // A broken port rule: both runs give the same one line (on the device rounds, found on the
  // executor, then worded by the CPU backend's run).
  if (make_case(*ring_ag, TopologyKind::ring, 16, "", OperatorKind::interval, false, c)) {
    c.ports = PortSpec{PortModel::half_duplex, 1};
    add("allgather_ring, half-duplex (broken)", c);
  }
  // A port rule broken in the sizing pass by the root alone (its block's rank finds it; the
  // others must not wait for it).
  if (const AlgorithmInfo* allport = find_algorithm("broadcast_hypercube_allport");
      allport && make_case(*allport, TopologyKind::hypercube, 4, "", OperatorKind::interval, false, c)) {
    c.params.m = 8;
    c.ports = PortSpec{PortModel::single, 1};
    add("broadcast_hypercube_allport, single port (broken)", c);
  }
  // Fewer processors than ranks: empty blocks.
  for (int64_t p : {1, 2, 3})
    for (const char* name : {"allreduce_ring", "scan_ring", "broadcast_binomial"})
      if (make_case(*find_algorithm(name), TopologyKind::ring, p, "", OperatorKind::interval, false, c))
        add(std::string(name) + " on a ring of " + std::to_string(p), c);
  return out;
}

// A report without what differs between any two runs (wall times) and between one process and a
// split run by design (how the steps ran: the pull step in one process, records across ranks).
json without_walls(json d) {
  if (d.is_object()) {
    json out = json::object();
    for (auto it = d.begin(); it != d.end(); ++it)
      if (it.key().find("seconds") == std::string::npos && it.key() != "step_path") out[it.key()] = without_walls(it.value());
    return out;
  }
  if (d.is_array())
    for (auto& x : d) x = without_walls(x);
  return d;
}

}  // namespace

// A run's report (or its one line) on the CPU backend or on the host execution of the device
// rounds, split across the world's ranks or, on rank 0, in one process.
struct Outcome {
  json report;
  std::string error;
  bool operator==(const Outcome& o) const { return report == o.report && error == o.error; }
};

Outcome outcome(RunConfig c, Collectives* ranks, bool device_rounds) {
  c.ranks = ranks;
  Outcome o;
  try {
    RunResult r = device_rounds ? run_device_rounds_on_host(c) : run_simulation(c, Backend::cpu);
    if (!ranks || ranks->rank() == 0) o.report = without_walls(run_json(c, device_rounds ? Backend::cuda : Backend::cpu, r));
  } catch (const AgreedError& e) {
    o.error = e.what();
  } catch (const std::exception& e) {
    if (ranks) throw;  // a split run's every failure is agreed
    o.error = e.what();
  }
  return o;
}

int main(int argc, char** argv) {
  dist::start(&argc, &argv);
  Collectives* world = dist::world();
  if (!world) {
    std::cerr << "test_split_runs: run it under mpirun with more than one rank\n";
    dist::finish();
    return 2;
  }
  const bool root = world->rank() == 0;
  int64_t passed = 0, failed = 0, on_device_rounds = 0;
  for (const Case& k : cases())
    for (const bool device_rounds : {false, true}) {
      // The LogGP clocks are the run layer's, not the device rounds': those are timed on the CPU.
      if (device_rounds && k.c.cost.model == CostModel::loggp) continue;
      on_device_rounds += device_rounds ? 1 : 0;
      Outcome one;
      if (root) one = outcome(k.c, nullptr, device_rounds);
      const Outcome split = outcome(k.c, world, device_rounds);
      if (!root) continue;
      if (one == split && (k.name.find("(broken)") == std::string::npos || !one.error.empty())) {
        ++passed;
        continue;
      }
      ++failed;
      std::cout << "DIFFERENT: " << k.name << (device_rounds ? " (device rounds)" : "") << " on " << world->size() << " ranks\n";
      if (one.error != split.error) std::cout << "  one process: " << one.error << "\n  split: " << split.error << "\n";
      else std::cout << "  " << json::diff(one.report, split.report).dump().substr(0, 2000) << "\n";
    }
  if (root)
    std::cout << "split across " << world->size() << " ranks: " << passed << " passed, " << failed << " failed (" << on_device_rounds
              << " of them on the device rounds)\n";
  int64_t v[1] = {failed};
  world->sum(v, 1);
  dist::finish();
  return v[0] ? 1 : 0;
}
