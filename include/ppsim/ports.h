// Port models (docs/DESIGN.md §2): how many messages a processor may send and receive in a step.
#pragma once
#include <cstdint>
#include <string>

namespace ppsim {

enum class PortModel : int8_t { single, half_duplex, telephone, kport, all };

// The model as reports name it in a sentence: "single-port", "half-duplex", "telephone", "k-port", "all-port".
const char* port_model_name(PortModel m);

struct PortSpec {
  PortModel model = PortModel::single;
  int32_t k = 1;  // kport only
};
std::string port_spec_name(const PortSpec& s);  // "single", "half-duplex", "telephone", "all", "3"
bool parse_port_spec(const std::string& text, PortSpec& out);
std::string port_spec_names(const char* separator);  // the named specs: "single", ..., "all"

}  // namespace ppsim
