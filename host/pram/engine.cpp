// The PRAM engine: read phase, register update, write phase, with the access rules checked per
// phase (see include/ppsim/pram.h) and the final registers checked against the sequential reference.
#include <chrono>
#include <numeric>
#include <string>
#include <vector>

#include "ppsim/engine.h"
#include "ppsim/pram.h"
#include "pram/all.h"

namespace ppsim {

namespace {
struct RuleName { const char* machine; const char* rule; PramRule r; };
constexpr RuleName kRules[] = {
    {"pram-erew", "erew", PramRule::erew},
    {"pram-crew", "crew", PramRule::crew},
    {"pram-crcw-common", "crcw-common", PramRule::crcw_common},
    {"pram-crcw-arbitrary", "crcw-arbitrary", PramRule::crcw_arbitrary},
    {"pram-crcw-priority", "crcw-priority", PramRule::crcw_priority},
    {"pram-crcw-combining", "crcw-combining", PramRule::crcw_combining},
};

std::string upper_rule(PramRule r) {
  switch (r) {
    case PramRule::erew: return "EREW";
    case PramRule::crew: return "CREW";
    case PramRule::crcw_common: return "common CRCW";
    case PramRule::crcw_arbitrary: return "arbitrary CRCW";
    case PramRule::crcw_priority: return "priority CRCW";
    case PramRule::crcw_combining: return "combining CRCW";
  }
  return "?";
}
}  // namespace

const char* pram_rule_name(PramRule r) {
  for (const auto& e : kRules) if (e.r == r) return e.rule;
  return "?";
}

bool parse_pram_machine(const std::string& machine, PramRule& out) {
  for (const auto& e : kRules) if (machine == e.machine) { out = e.r; return true; }
  return false;
}

const std::vector<PramAlgorithmInfo>& pram_algorithms() {
  static const std::vector<PramAlgorithmInfo> table = {
#define PPSIM_PRAM_INFO(unit) {PramAlgorithmId::unit, unit::name, unit::description, unit::op, unit::weakest_rule, &unit::steps},
      PPSIM_PRAM_ALGORITHMS(PPSIM_PRAM_INFO)
#undef PPSIM_PRAM_INFO
  };
  return table;
}

const PramAlgorithmInfo* find_pram_algorithm(const std::string& name) {
  for (const auto& a : pram_algorithms()) if (name == a.name) return &a;
  return nullptr;
}

const PramAlgorithmInfo* default_pram_algorithm(Operation op) {
  for (const auto& a : pram_algorithms()) if (a.op == op && a.weakest_rule == PramRule::erew) return &a;
  return nullptr;
}

PramResult run_pram(const PramConfig& c) {
  if (!c.algorithm) throw ConfigError("no PRAM algorithm chosen");
  const int64_t n = c.params.n, m = c.params.m;
  if (n < 1 || n > (int64_t{1} << 28)) throw ConfigError("a PRAM has 1 .. 2^28 processors (got " + std::to_string(n) + ")");
  if (m < 1 || double(n) * double(m) > double(int64_t{1} << 30))
    throw ConfigError("--m must be at least 1 and N * m at most 2^30 words");
  if (c.trace && n * m > 65536) throw ConfigError("--trace on a PRAM is limited to N * m <= 65536 words");
  // Weaker rules are run and their violations reported at the step; but between two CRCW write
  // rules (other than common, whose conflicts are detected) nothing can be detected: the result
  // would just be wrong. Refuse that pairing up front.
  auto crcw = [](PramRule x) { return x >= PramRule::crcw_common; };
  PramRule need = c.algorithm->weakest_rule;
  if (crcw(need) && need != PramRule::crcw_common && crcw(c.rule) && c.rule != PramRule::crcw_common && c.rule != need)
    throw ConfigError(std::string(c.algorithm->name) + " needs " + upper_rule(need) + " writes; under " + upper_rule(c.rule) +
                      " only one of the concurrent values would land");
  auto start = std::chrono::steady_clock::now();
  const OperatorKind k = c.combine;
  const Operation op = c.algorithm->op;
  auto input = [&](int64_t i, int64_t w) { return input_word(k, c.input, i, w, m); };

  PramResult r;
  r.registers.assign(size_t(n * m), operator_unset(k));
  r.cells.assign(size_t(n * m), operator_unset(k));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t w = 0; w < m; ++w) {
      if (op != Operation::broadcast || i == 0) r.registers[size_t(i * m + w)] = input(i, w);  // a_i (D at processor 0)
      if (op != Operation::broadcast || i == 0) r.cells[size_t(i * m + w)] = input(i, w);      // A(i) = a_i, A(0) = D
    }
  if (c.trace) r.trace.push_back({r.registers, r.cells});

  std::vector<PramOps> ops(static_cast<size_t>(n));
  std::vector<int64_t> first_reader(static_cast<size_t>(n)), first_writer(static_cast<size_t>(n));
  std::vector<uint64_t> read_value(static_cast<size_t>(n * m));
  r.steps = c.algorithm->steps(c.params);
  for (int step = 1; step <= r.steps; ++step) {
    PramStepStats st;
    st.step = step;
    std::string at = "step " + std::to_string(step) + ": ";
    for (int64_t i = 0; i < n; ++i) {
      ops[size_t(i)] = c.test_ops_override ? c.test_ops_override(c.params, i, step)
                                           : pram_algorithm_ops(c.algorithm->id, c.params, i, step);
      const PramOps& o = ops[size_t(i)];
      if (o.read >= n || o.write >= n || o.read < -1 || o.write < -1)
        throw ScheduleError(at + "processor " + std::to_string(i) + " addresses a cell outside 0.." + std::to_string(n - 1));
      if (o.read < 0 && o.update != RegisterUpdate::keep)
        throw ScheduleError(at + "processor " + std::to_string(i) + " updates its register from a read it does not make");
    }
    // Read phase: everybody sees the array as it was at the start of the step.
    std::fill(first_reader.begin(), first_reader.end(), -1);
    for (int64_t i = 0; i < n; ++i) {
      int64_t cell = ops[size_t(i)].read;
      if (cell < 0) continue;
      ++st.reads;
      if (first_reader[size_t(cell)] >= 0 && c.rule == PramRule::erew)
        throw ScheduleError(at + "processors " + std::to_string(first_reader[size_t(cell)]) + " and " + std::to_string(i) +
                            " both read cell " + std::to_string(cell) + ", which the EREW rule forbids");
      if (first_reader[size_t(cell)] < 0) first_reader[size_t(cell)] = i;
      for (int64_t w = 0; w < m; ++w) read_value[size_t(i * m + w)] = r.cells[size_t(cell * m + w)];
    }
    // Local update of the registers.
    for (int64_t i = 0; i < n; ++i)
      for (int64_t w = 0; w < m; ++w) {
        uint64_t& a = r.registers[size_t(i * m + w)];
        uint64_t R = read_value[size_t(i * m + w)];
        switch (ops[size_t(i)].update) {
          case RegisterUpdate::keep: break;
          case RegisterUpdate::load: a = R; break;
          case RegisterUpdate::reg_op_read: a = combine_dyn(k, a, R); break;
          case RegisterUpdate::read_op_reg: a = combine_dyn(k, R, a); break;
        }
      }
    // Write phase, in processor order (priority: the first writer stays; arbitrary: the last wins;
    // combining: fold in order; common: every later value must equal the first).
    std::fill(first_writer.begin(), first_writer.end(), -1);
    for (int64_t i = 0; i < n; ++i) {
      int64_t cell = ops[size_t(i)].write;
      if (cell < 0) continue;
      ++st.writes;
      uint64_t* dst = r.cells.data() + cell * m;
      const uint64_t* val = r.registers.data() + i * m;
      int64_t first = first_writer[size_t(cell)];
      if (first < 0) {
        first_writer[size_t(cell)] = i;
        std::copy(val, val + m, dst);
        continue;
      }
      std::string who = "processors " + std::to_string(first) + " and " + std::to_string(i);
      switch (c.rule) {
        case PramRule::erew: case PramRule::crew:
          throw ScheduleError(at + who + " both write cell " + std::to_string(cell) + ", which the " + upper_rule(c.rule) +
                              " rule forbids");
        case PramRule::crcw_common:
          if (!std::equal(val, val + m, dst))
            throw ScheduleError(at + who + " write different values to cell " + std::to_string(cell) +
                                ", which the common CRCW rule forbids");
          break;
        case PramRule::crcw_arbitrary: std::copy(val, val + m, dst); break;
        case PramRule::crcw_priority: break;
        case PramRule::crcw_combining:
          for (int64_t w = 0; w < m; ++w) dst[w] = combine_dyn(k, dst[w], val[w]);
          break;
      }
    }
    r.reads += st.reads;
    r.writes += st.writes;
    r.per_step.push_back(st);
    if (c.trace) r.trace.push_back({r.registers, r.cells});
  }

  // Reference: the operation's meaning on the registers.
  auto expect = [&](int64_t i, int64_t w, uint64_t v) { r.mismatches += r.registers[size_t(i * m + w)] != v; };
  for (int64_t w = 0; w < m; ++w) {
    std::vector<uint64_t> a(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) a[size_t(i)] = input(i, w);
    auto op_fn = [&](uint64_t x, uint64_t y) { return combine_dyn(k, x, y); };
    if (op == Operation::broadcast) {
      for (int64_t i = 0; i < n; ++i) expect(i, w, a[0]);
    } else if (op == Operation::reduce) {
      expect(0, w, std::accumulate(a.begin() + 1, a.end(), a[0], op_fn));
    } else {
      std::vector<uint64_t> prefix(static_cast<size_t>(n));
      std::inclusive_scan(a.begin(), a.end(), prefix.begin(), op_fn);
      for (int64_t i = 0; i < n; ++i) expect(i, w, prefix[size_t(i)]);
    }
  }
  r.verified = r.mismatches == 0;
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace ppsim
