// `ppsim list`: topologies, operations, algorithms and operators, all read from the registries;
// `ppsim list --markdown`: the README's algorithm table.
#include <iostream>
#include <memory>
#include <string>

#include "commands.h"
#include "options.h"
#include "ppsim/algorithm.h"
#include "ppsim/pram.h"
#include "ppsim/preset.h"

namespace ppsim::cli {

namespace {

// The topologies the algorithm runs on (`separator` between names), or those it is the default on.
std::string topology_names(const AlgorithmInfo& a, bool (AlgorithmInfo::*on)(TopologyKind) const, const char* separator) {
  std::string s;
  for (int k = 0; k < kTopologyCount; ++k)
    if ((a.*on)(TopologyKind(k))) s += std::string(s.empty() ? "" : separator) + topology_name(TopologyKind(k));
  return s;
}

std::string topology_list(const AlgorithmInfo& a) {
  return a.topologies == (1u << kTopologyCount) - 1 ? "any" : topology_names(a, &AlgorithmInfo::runs_on, ",");
}

std::string escape_pipes(std::string text) {
  for (size_t at = text.find('|'); at != std::string::npos; at = text.find('|', at + 2)) text.replace(at, 1, "\\|");
  return text;
}

// The README's algorithm table, straight from the registry. Steps are shown at p = 64 (a 6-cube
// where the algorithm runs on one, else an 8x8 torus, else a ring, else a cluster of 8 nodes of 8;
// m = 64 words, shift q = 5).
int list_markdown() {
  std::cout << "| operation | algorithm | runs on (default on) | steps at p = 64 | closed form | what it does |\n"
               "|---|---|---|---:|---|---|\n";
  for (int o = 0; o < kOperationCount; ++o)
    for (const auto& a : algorithms()) {
      if (a.op != Operation(o)) continue;
      const std::string nat = topology_names(a, &AlgorithmInfo::native_on, ", ");
      Topology t = a.runs_on(TopologyKind::hypercube) ? make_topology(TopologyKind::hypercube, 64, "")
                   : a.runs_on(TopologyKind::torus)   ? make_topology(TopologyKind::torus, 0, "8x8")
                   : a.runs_on(TopologyKind::ring)    ? make_topology(TopologyKind::ring, 64, "")
                                                      : make_topology(TopologyKind::cluster, 0, "8x8");
      AlgoParams prm = params_for(t, 64, 0);
      prm.shift = 5;
      std::string steps = algorithm_rejects(a, t, prm, OperatorKind::sum).empty() ? std::to_string(a.rounds(prm)) : "-";
      std::cout << "| " << operation_name(a.op) << " | `" << a.name << "` | " << topology_list(a) << (nat.empty() ? "" : " (" + nat + ")")
                << " | " << steps << " | " << escape_pipes(a.formula_text) << " | " << escape_pipes(a.description) << " |\n";
    }
  return 0;
}

void list_topologies() {
  std::cout << "topologies:\n";
  for (int k = 0; k < kTopologyCount; ++k) {
    auto kind = TopologyKind(k);
    const std::string hint = topology_hint(kind);
    std::cout << "  " << topology_name(kind) << (hint.empty() ? "" : "  (" + hint + ")")
              << "\n      link classes (--tw-class): " << topology_link_classes_text(kind) << "\n";
  }
}

void list_algorithms() {
  std::cout << "algorithms:\n";
  for (int o = 0; o < kOperationCount; ++o)
    for (const auto& a : algorithms())
      if (a.op == Operation(o)) {
        std::cout << "  " << a.name << "  [" << operation_name(a.op) << "; topologies: " << topology_list(a);
        if (a.native) std::cout << "; default on: " << topology_names(a, &AlgorithmInfo::native_on, ",");
        if (a.needs_pow2()) std::cout << "; p = 2^d";
        if (a.commutative_only()) std::cout << "; commutative operators only";
        if (a.root_zero_if_noncommutative()) std::cout << "; non-commutative operators need root 0";
        std::cout << "]\n      " << a.description << "\n      T = " << a.formula_text << "\n";
      }
}

int list_all() {
  list_topologies();
  std::cout << "operations:\n ";
  for (int o = 0; o < kOperationCount; ++o) std::cout << " " << operation_name(Operation(o));
  std::cout << "\n  (MPI names are accepted too:";
  int listed = 0;
  for (int o = 0; o < kOperationCount; ++o)
    if (const char* mpi = operation_mpi_name(Operation(o))) std::cout << (listed++ == 0 ? " " : listed == 5 ? ",\n   " : ", ") << mpi;
  std::cout << ")\n";
  list_algorithms();
  std::cout
      << "shared-memory machines (--machine):\n  pram-erew pram-crew pram-crcw-common pram-crcw-arbitrary pram-crcw-priority pram-crcw-combining\n";
  std::cout << "shared-memory algorithms:\n";
  for (const auto& a : pram_algorithms())
    std::cout << "  " << a.name << "  [" << operation_name(a.op) << "; needs " << pram_rule_name(a.weakest_rule) << "]\n      "
              << a.description << "\n";
  std::cout << "machines (--preset NAME --nodes N: a cluster NxGxK, sizes in bytes, bandwidths in GB/s, times in us; docs/PRESETS.md):\n";
  for (const MachinePreset& m : machine_presets())
    std::cout << "  " << m.name << "  [G = " << m.gpus << ", K = " << m.nics << "; nvlink " << m.nvlink_GBps << " GB/s, pcie " << m.pcie_GBps
              << " GB/s, NIC " << m.nic_Gbps << " Gb/s"
              << (preset_nics_each(m) > 1 ? " (" + std::to_string(preset_nics_each(m)) + " an accelerator, joined into one)" : std::string())
              << (m.nvls ? "; NVLS" : "") << "; sm " << m.sm << ", " << (m.amd_cpu ? "AMD" : "Intel") << " host]\n      " << m.title << "\n";
  std::cout << "element types (--type, with bytes):\n  " << kElementTypeNames << "\n";
  std::cout << "operators:\n  " << operator_names() << "\n";
  std::cout << "ports:\n  " << port_spec_names(" ") << " K (k-port, 1.." << kMaxOps << ")\n";
  return 0;
}

}  // namespace

Command list_command() {
  auto markdown = std::make_shared<bool>(false);
  Command list("list", "list topologies, operations, algorithms and operators");
  list.flag("--markdown", *markdown, "print the algorithm table in Markdown");
  list.run = [markdown](const Command&) { return *markdown ? list_markdown() : list_all(); };
  return list;
}

}  // namespace ppsim::cli
