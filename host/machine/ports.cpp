// The port models' names: one table for the option's spelling and the reports' sentences.
#include <string>

#include "ppsim/ports.h"
#include "ppsim/schedule.h"

namespace ppsim {

namespace {
struct PortNames {
  PortModel model;
  const char* spec;      // --ports spelling (k-port: the number)
  const char* sentence;  // "the ... model"
};
constexpr PortNames kPortNames[] = {
    {PortModel::single, "single", "single-port"},
    {PortModel::half_duplex, "half-duplex", "half-duplex"},
    {PortModel::telephone, "telephone", "telephone"},
    {PortModel::kport, nullptr, "k-port"},
    {PortModel::all, "all", "all-port"},
};
const PortNames& names_of(PortModel m) {
  for (const PortNames& n : kPortNames)
    if (n.model == m) return n;
  return kPortNames[0];
}
}  // namespace

const char* port_model_name(PortModel m) { return names_of(m).sentence; }

std::string port_spec_name(const PortSpec& s) {
  return s.model == PortModel::kport ? std::to_string(s.k) : std::string(names_of(s.model).spec);
}

std::string port_spec_names(const char* separator) {
  std::string list;
  for (const PortNames& n : kPortNames) {
    if (!n.spec) continue;
    if (!list.empty()) list += separator;
    list += n.spec;
  }
  return list;
}

bool parse_port_spec(const std::string& text, PortSpec& out) {
  for (const PortNames& n : kPortNames)
    if (n.spec && text == n.spec) {
      out = {n.model, n.model == PortModel::all ? kMaxOps : 1};
      return true;
    }
  if (text.empty() || text.size() > 3 || text.find_first_not_of("0123456789") != std::string::npos) return false;
  int k = std::stoi(text);
  if (k < 1 || k > kMaxOps) return false;
  out = {PortModel::kport, k};
  return true;
}

}  // namespace ppsim
