// libFuzzer target for the GOAL reader and the LogGP engine (`make fuzz`, fuzz/Makefile). Any input
// must be read or refused with a ParseError of the form "NAME:LINE: expected ..., found ..."; a
// small schedule that was read must be timed or refused with a StuckError, under LogGOPSim's
// default parameters and under a set where rendezvous starts at 17 bytes and bytes cost CPU time.
// Anything else (another exception, a crash, a sanitizer report, a hang) is a bug.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "goal/goal.h"

namespace {

// "fuzz:LINE: expected ..., found ..." with LINE a positive number, all of it printable ASCII.
bool well_formed(const std::string& m) {
  const std::string head = "fuzz:";
  if (m.compare(0, head.size(), head) != 0) return false;
  if (!std::all_of(m.begin(), m.end(), [](char c) { return c >= 0x20 && c < 0x7F; })) return false;
  size_t i = head.size(), digits = 0;
  while (i < m.size() && m[i] >= '0' && m[i] <= '9') ++i, ++digits;
  return digits > 0 && m[head.size()] != '0' && m.compare(i, 11, ": expected ") == 0 && m.find(", found ", i) != std::string::npos;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ppsim;
  goal::Schedule s;
  try {
    s = goal::parse(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
  } catch (const goal::ParseError& e) {
    if (!well_formed(e.what())) std::abort();
    return 0;
  }
  // The engine's clocks per rank and CPU (NIC) stay within the reader's limit.
  if (uint64_t(s.ranks) * uint64_t(std::max(s.cpus, s.nics)) > goal::kMaxRanks) std::abort();
  if (s.ranks > 64 || s.ops.size() > 10000) return 0;
  loggp::Params early_rendezvous;
  early_rendezvous.S = 16;
  early_rendezvous.O = 3;
  for (const loggp::Params& P : {loggp::Params{}, early_rendezvous}) {
    try {
      goal::simulate(s, P);
    } catch (const loggp::StuckError&) {
    }
  }
  return 0;
}
