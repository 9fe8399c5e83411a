// A registered algorithm's rounds written as a GOAL schedule (goal_writer.h).
#include "goal/goal_writer.h"

#include <ostream>
#include <vector>

#include "loggp/loggp_rounds.h"
#include "ppsim/buffers.h"

namespace ppsim {

using loggp_rounds::bytes_of;
using loggp_rounds::RoundReader;

void write_goal(const RunConfig& c, std::ostream& out) {
  RoundReader reader(c);
  const int64_t p = run_processors(c);
  out << "// ppsim goal: " << c.algorithm->name << " (" << operation_name(c.algorithm->op) << "), p = " << c.params.p
      << ", m = " << words_text(c.params.m) << " of " << kBytesPerWord << " bytes, root " << c.params.root << "\n";
  if (p > c.params.p)
    out << "// Ranks " << c.params.p << " .. " << p - 1 << " are the machine's switches, which fold in the network (node p + s of "
        << topology_shape(physical_topology(c)) << ").\n";
  out
      << "// A round's operations require the receives of the processor's latest earlier round with receives; tag = round.\n"
      << "num_ranks " << p << "\n";
  std::vector<int> gate;  // label numbers of the receives the next operations wait for
  std::vector<int> next_gate;
  for (int64_t i = 0; i < p; ++i) {
    out << "\nrank " << i << " {\n";
    gate.clear();
    int label = 0;
    for (int r = 1; r <= reader.rounds(); ++r) {
      const StepOps& ops = reader.read(i, r);
      next_gate.clear();
      auto requires_gate = [&](int l) {
        for (int g : gate) out << 'l' << l << " requires l" << g << '\n';
      };
      for (int k = 0; k < ops.nsend; ++k) {
        ++label;
        out << 'l' << label << ": send " << bytes_of(ops.send[k].len) << "b to " << ops.send[k].to << " tag " << r << '\n';
        requires_gate(label);
      }
      for (int k = 0; k < ops.nrecv; ++k) {
        ++label;
        out << 'l' << label << ": recv " << bytes_of(ops.recv[k].len) << "b from " << ops.recv[k].from << " tag " << r << '\n';
        requires_gate(label);
        next_gate.push_back(label);
      }
      if (!next_gate.empty()) gate.swap(next_gate);
    }
    out << "}\n";
  }
}

}  // namespace ppsim
