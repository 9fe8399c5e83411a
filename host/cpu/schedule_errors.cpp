// The words of every schedule error a run can report (docs/DESIGN.md §2).
#include "cpu/schedule_errors.h"

#include "ppsim/errors.h"

namespace ppsim::cpu {

std::string at(int64_t step, int64_t proc) { return "step " + std::to_string(step) + ": processor " + std::to_string(proc); }

std::string broken_rule_text(const rules::Verdict& v, const StepOps& ops, int64_t i, int64_t t, int64_t arrives, PortModel model,
                             int limit) {
  const std::string model_name = port_model_name(model), limit_text = std::to_string(limit);
  auto num = [](int64_t x) { return std::to_string(x); };
  switch (v.what) {
    case rules::Broken::none: break;
    case rules::Broken::overflow: return at(t, i) + " posts more than " + num(kMaxOps) + " sends or receives";
    case rules::Broken::sends:
      return at(t, i) + " sends " + num(ops.nsend) + " messages (to " + num(ops.send[0].to) + " and " + num(ops.send[1].to) +
             ") but the " + model_name + " model allows " + limit_text;
    case rules::Broken::recvs:
      return at(arrives, i) + " receives " + num(ops.nrecv) + " messages (from " + num(ops.recv[0].from) + " and " +
             num(ops.recv[1].from) + ") but the " + model_name + " model allows " + limit_text;
    case rules::Broken::out_link:
      return at(t, i) + " sends to " + num(ops.send[v.a].to) + " and " + num(ops.send[v.b].to) +
             " over the same outgoing link, which the all-port model forbids";
    case rules::Broken::in_link:
      return at(arrives, i) + " receives from " + num(ops.recv[v.a].from) + " and " + num(ops.recv[v.b].from) +
             " over the same incoming link, which the all-port model forbids";
    case rules::Broken::send:
      return at(t, i) + " posts an invalid send (to " + num(ops.send[v.a].to) + ", " + words_text(ops.send[v.a].len) + ")";
    case rules::Broken::recv: return at(t, i) + " posts an invalid receive (from " + num(ops.recv[v.a].from) + ")";
  }
  return at(t, i) + " breaks the schedule";
}

std::string unmatched_send_text(int64_t t, int64_t i, int64_t to, int64_t len) {
  return at(t, i) + " sends " + words_text(len) + " to " + std::to_string(to) + ", which posts no matching receive from " +
         std::to_string(i);
}

std::string length_mismatch_text(int64_t t, int64_t i, int64_t to, int64_t len, int64_t expected) {
  return at(t, i) + " sends " + words_text(len) + " to " + std::to_string(to) + ", which expects " + words_text(expected) + " from " +
         std::to_string(i);
}

std::string unmatched_receive_text(int64_t t, int64_t proc, int64_t from, int64_t len) {
  return at(t, proc) + " expects " + words_text(len) + " from " + std::to_string(from) + ", which sends it nothing in that step";
}

std::string exchange_text(rules::Exchange e, int64_t t, int64_t i, int64_t send_to, int64_t recv_from) {
  if (e == rules::Exchange::half_duplex)
    return at(t, i) + " both sends (to " + std::to_string(send_to) + ") and receives (from " + std::to_string(recv_from) +
           "), which the half-duplex model forbids";
  return at(t, i) + " sends to " + std::to_string(send_to) + " but receives from " + std::to_string(recv_from) +
         "; the telephone model allows one exchange with one partner";
}

}  // namespace ppsim::cpu
