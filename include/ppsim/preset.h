// Machines people own (docs/PRESETS.md): each written as a cluster of N nodes (topologies/cluster.h)
// and its links' bandwidths, every number from a public specification cited there. A preset is a
// way of writing a machine and its cost parameters, not a model of its own: `--preset NAME --nodes
// N` gives the same run as the topology, --dims and --bw-class it stands for.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ppsim {

struct MachinePreset {
  const char* name;
  const char* title;     // what the machine is, in one line
  int64_t gpus;          // accelerators a node (G)
  int64_t nics;          // network interfaces a node (K; K divides G, or G divides K)
  double nvlink_GBps;    // an accelerator's NVLink bandwidth to the NVSwitch, each direction (GB/s = 10^9 B/s)
  double pcie_GBps;      // an accelerator's PCIe link (to its NIC), each direction
  double nic_Gbps;       // a NIC's line rate, each direction (Gb/s)
  bool nvls;             // the NVSwitch reduces (NVLink SHARP: NCCL's NVLS)
  int64_t nvlink_links;  // NVLink links of an accelerator (its nvlink_GBps is their line rate together)
  int sm;                // the GPU's compute capability (80: A100, 90: H100 and H200), as NCCL's model reads it
  bool amd_cpu;          // the host's CPUs are AMD's (else Intel's): NCCL's model charges their network posts and LL differently
};

// Every preset, in `ppsim list` order.
const std::vector<MachinePreset>& machine_presets();
// The preset of that name, or null.
const MachinePreset* find_machine_preset(const std::string& name);
// "hgx-a100, hgx-h100, ...": every name, for messages and help.
std::string machine_preset_names();

// NICs of one accelerator where a node has more NICs than accelerators (K/G), else 1. The cluster
// joins them into one NIC of their total rate: NCCL spreads an accelerator's channels over its NICs.
int64_t preset_nics_each(const MachinePreset& m);
// The cluster's --dims for N nodes of the preset: "NxGxK", with K = G where G divides K (the NICs
// of an accelerator joined).
std::string preset_dims(const MachinePreset& m, int64_t nodes);
// The bandwidth of each of the cluster's link classes in GB/s: nvlink and pcie from the preset,
// rail the NIC's line rate (times the NICs of an accelerator, joined), spine the N NICs of a rail's
// leaf switch together (a non-blocking spine).
double preset_class_GBps(const MachinePreset& m, int64_t nodes, const std::string& link_class);

// The share of NVLink's line rate that NCCL's model (of the version, ppsim/protocol.h) takes an
// accelerator to reach: nccl_nvlink_GBps ÷ the line rate (2.20.3: A100 12 × 20 / 300 = 0.8, H100
// 18 × 20.6 / 450 = 0.824; 2.8.3: A100 235 / 300). 1 for a name that is no preset.
enum class NcclVersion : int8_t;
double preset_nvlink_share(const std::string& name, NcclVersion version);

// nccl-tests' element types (its -d) and their bytes: what a word stands for when sizes are bytes.
inline constexpr const char* kElementTypeNames = "int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16";
// The bytes of element type `name`, or 0 when it is none of them.
int64_t element_type_bytes(const std::string& name);

}  // namespace ppsim
