// The presets of real machines (ppsim/preset.h). Every figure is from the public specification
// docs/PRESETS.md cites for it; none is fitted to a measurement.
#include "ppsim/preset.h"

#include "ppsim/protocol.h"

namespace ppsim {

const std::vector<MachinePreset>& machine_presets() {
  // name, title, G, K, NVLink GB/s, PCIe GB/s, NIC Gb/s, NVLS, NVLink links, compute capability,
  // AMD host CPUs
  static const std::vector<MachinePreset> presets = {
      {"hgx-a100", "NVIDIA DGX/HGX A100: 8 A100 SXM4, NVLink3 and NVSwitch, 8 HDR InfiniBand NICs of 200 Gb/s", 8, 8, 300, 32, 200,
       false, 12, 80, true},
      {"hgx-h100", "NVIDIA DGX/HGX H100: 8 H100 SXM5, NVLink4 and NVSwitch with NVLink SHARP, 8 NDR NICs of 400 Gb/s", 8, 8, 450, 64, 400,
       true, 18, 90, false},
      {"hgx-h200", "NVIDIA HGX H200: 8 H200 SXM, NVLink4 and NVSwitch with NVLink SHARP, 8 NDR NICs of 400 Gb/s", 8, 8, 450, 64, 400,
       true, 18, 90, false},
      {"aws-p4d", "AWS p4d.24xlarge: 8 A100 SXM4 40GB, NVLink3 and NVSwitch, 4 EFA interfaces of 100 Gb/s", 8, 4, 300, 32, 100, false, 12, 80, false},
      {"aws-p5", "AWS p5.48xlarge: 8 H100 SXM 80GB, NVLink4 and NVSwitch, 32 EFA interfaces of 100 Gb/s (4 an accelerator)", 8, 32, 450, 64,
       100, true, 18, 90, true},
      {"oci-bm-gpu4.8", "OCI BM.GPU4.8: 8 A100 SXM4 40GB, NVLink3 and NVSwitch, 16 RoCE ports of 100 Gb/s (2 an accelerator)", 8, 16, 300,
       32, 100, false, 12, 80, true},
  };
  return presets;
}

const MachinePreset* find_machine_preset(const std::string& name) {
  for (const MachinePreset& m : machine_presets())
    if (name == m.name) return &m;
  return nullptr;
}

std::string machine_preset_names() {
  std::string s;
  for (const MachinePreset& m : machine_presets()) s += std::string(s.empty() ? "" : ", ") + m.name;
  return s;
}

int64_t preset_nics_each(const MachinePreset& m) { return m.nics > m.gpus ? m.nics / m.gpus : 1; }

std::string preset_dims(const MachinePreset& m, int64_t nodes) {
  return std::to_string(nodes) + "x" + std::to_string(m.gpus) + "x" + std::to_string(m.nics / preset_nics_each(m));
}

double preset_class_GBps(const MachinePreset& m, int64_t nodes, const std::string& link_class) {
  if (link_class == "nvlink") return m.nvlink_GBps;
  if (link_class == "pcie") return m.pcie_GBps;
  const double nic = m.nic_Gbps / 8 * double(preset_nics_each(m));  // an accelerator's NICs, joined
  return link_class == "spine" ? nic * double(nodes) : nic;
}

double preset_nvlink_share(const std::string& name, NcclVersion version) {
  const MachinePreset* m = find_machine_preset(name);
  return m ? nccl_nvlink_GBps(version, m->sm, m->nvlink_links) / m->nvlink_GBps : 1.0;
}

int64_t element_type_bytes(const std::string& name) {
  struct Type {
    const char* name;
    int64_t bytes;
  };
  static const Type types[] = {{"int8", 1},   {"uint8", 1},  {"int32", 4}, {"uint32", 4}, {"int64", 8},
                               {"uint64", 8}, {"half", 2},   {"float", 4}, {"double", 8}, {"bfloat16", 2}};
  for (const Type& t : types)
    if (name == t.name) return t.bytes;
  return 0;
}

}  // namespace ppsim
