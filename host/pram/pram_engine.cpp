// The PRAM engine: read phase, register update, write phase, with the access rules checked per
// phase (see include/ppsim/pram.h) and the final registers checked against the sequential reference.
#include <algorithm>
#include <chrono>
#include <numeric>
#include <string>
#include <vector>

#include "ppsim/engine.h"
#include "ppsim/pram.h"
#include "pram/all.h"

namespace ppsim {

namespace {
// Every rule once: the --machine name, the short name, and the name messages use.
struct RuleName {
  const char* machine;
  const char* rule;
  const char* upper;
  PramRule r;
};
constexpr RuleName kRules[] = {
    {"pram-erew", "erew", "EREW", PramRule::erew},
    {"pram-crew", "crew", "CREW", PramRule::crew},
    {"pram-crcw-common", "crcw-common", "common CRCW", PramRule::crcw_common},
    {"pram-crcw-arbitrary", "crcw-arbitrary", "arbitrary CRCW", PramRule::crcw_arbitrary},
    {"pram-crcw-priority", "crcw-priority", "priority CRCW", PramRule::crcw_priority},
    {"pram-crcw-combining", "crcw-combining", "combining CRCW", PramRule::crcw_combining},
};

std::string upper_rule(PramRule r) {
  for (const auto& e : kRules)
    if (e.r == r) return e.upper;
  return "?";
}
}  // namespace

const char* pram_rule_name(PramRule r) {
  for (const auto& e : kRules)
    if (e.r == r) return e.rule;
  return "?";
}

bool parse_pram_machine(const std::string& machine, PramRule& out) {
  for (const auto& e : kRules)
    if (machine == e.machine) {
      out = e.r;
      return true;
    }
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
  for (const auto& a : pram_algorithms())
    if (name == a.name) return &a;
  return nullptr;
}

const PramAlgorithmInfo* default_pram_algorithm(Operation op) {
  for (const auto& a : pram_algorithms())
    if (a.op == op && a.weakest_rule == PramRule::erew) return &a;
  return nullptr;
}

namespace {

// Refuses what the engine will not run: sizes, tracing, and a pair of CRCW write rules whose
// difference it could not detect.
void check_pram_config(const PramConfig& c) {
  if (!c.algorithm) throw ConfigError("no PRAM algorithm chosen");
  const int64_t n = c.params.n, m = c.params.m;
  if (n < 1 || n > (int64_t{1} << 28)) throw ConfigError("a PRAM has 1 .. 2^28 processors (got " + std::to_string(n) + ")");
  if (m < 1 || double(n) * double(m) > double(int64_t{1} << 30)) throw ConfigError("--m must be at least 1 and N * m at most 2^30 words");
  if (c.trace && n * m > 65536) throw ConfigError("--trace on a PRAM is limited to N * m <= 65536 words");
  if (operator_rounded(c.combine))  // its reference folds in order and compares bit for bit
    throw ConfigError(std::string("the PRAM machines verify bit for bit; --combine ") + operator_name(c.combine) +
                      " (floating point) runs on networks (--machine network)");
  // Weaker rules are run and their violations reported at the step; but between two CRCW write
  // rules (other than common, whose conflicts are detected) nothing can be detected: the result
  // would just be wrong. Refuse that pairing up front.
  auto crcw = [](PramRule x) { return x >= PramRule::crcw_common; };
  PramRule need = c.algorithm->weakest_rule;
  if (crcw(need) && need != PramRule::crcw_common && crcw(c.rule) && c.rule != PramRule::crcw_common && c.rule != need)
    throw ConfigError(std::string(c.algorithm->name) + " needs " + upper_rule(need) + " writes; under " + upper_rule(c.rule) +
                      " only one of the concurrent values would land");
}

// One run of a PRAM configuration: the registers and cells (in the result), and per-step scratch.
class PramMachine {
 public:
  explicit PramMachine(const PramConfig& c)
      : c_(c), n_(c.params.n), m_(c.params.m), k_(c.combine), ops_(size_t(n_)), first_reader_(size_t(n_)), first_writer_(size_t(n_)),
        read_value_(size_t(n_ * m_)) {}

  PramResult run() {
    load_inputs();
    r_.steps = c_.algorithm->steps(c_.params);
    for (int step = 1; step <= r_.steps; ++step) {  // one read phase, register update, write phase each
      PramStepStats st;
      st.step = step;
      const std::string at = "step " + std::to_string(step) + ": ";
      collect_ops(step, at);
      read_phase(at, st);
      update_registers();
      write_phase(at, st);
      r_.reads += st.reads;
      r_.writes += st.writes;
      r_.per_step.push_back(st);
      if (c_.trace) r_.trace.push_back({r_.registers, r_.cells});
    }
    r_.mismatches = count_mismatches();
    r_.verified = r_.mismatches == 0;
    return std::move(r_);
  }

 private:
  uint64_t input(int64_t i, int64_t w) const { return input_word(k_, c_.input, i, w, m_); }

  // Processor i's register holds a_i and cell i holds a_i (broadcast: only processor 0 and cell 0, D).
  void load_inputs() {
    const bool broadcast = c_.algorithm->op == Operation::broadcast;
    r_.registers.assign(size_t(n_ * m_), operator_unset(k_));
    r_.cells.assign(size_t(n_ * m_), operator_unset(k_));
    for (int64_t i = 0; i < n_; ++i)
      for (int64_t w = 0; w < m_; ++w)
        if (!broadcast || i == 0) r_.registers[size_t(i * m_ + w)] = r_.cells[size_t(i * m_ + w)] = input(i, w);
    if (c_.trace) r_.trace.push_back({r_.registers, r_.cells});
  }

  // Every processor's operations of the step, checked against the array's bounds.
  void collect_ops(int step, const std::string& at) {
    for (int64_t i = 0; i < n_; ++i) {
      ops_[size_t(i)] =
          c_.test_ops_override ? c_.test_ops_override(c_.params, i, step) : pram_algorithm_ops(c_.algorithm->id, c_.params, i, step);
      const PramOps& o = ops_[size_t(i)];
      if (o.read >= n_ || o.write >= n_ || o.read < -1 || o.write < -1)
        throw ScheduleError(at + "processor " + std::to_string(i) + " addresses a cell outside 0.." + std::to_string(n_ - 1));
      if (o.read < 0 && o.update != RegisterUpdate::keep)
        throw ScheduleError(at + "processor " + std::to_string(i) + " updates its register from a read it does not make");
    }
  }

  // Read phase: everybody sees the array as it was at the start of the step.
  void read_phase(const std::string& at, PramStepStats& st) {
    std::fill(first_reader_.begin(), first_reader_.end(), -1);
    for (int64_t i = 0; i < n_; ++i) {
      int64_t cell = ops_[size_t(i)].read;
      if (cell < 0) continue;
      ++st.reads;
      if (first_reader_[size_t(cell)] >= 0 && c_.rule == PramRule::erew)
        throw ScheduleError(at + "processors " + std::to_string(first_reader_[size_t(cell)]) + " and " + std::to_string(i) +
                            " both read cell " + std::to_string(cell) + ", which the EREW rule forbids");
      if (first_reader_[size_t(cell)] < 0) first_reader_[size_t(cell)] = i;
      for (int64_t w = 0; w < m_; ++w) read_value_[size_t(i * m_ + w)] = r_.cells[size_t(cell * m_ + w)];
    }
  }

  // Local update of the registers with the values read.
  void update_registers() {
    for (int64_t i = 0; i < n_; ++i)
      for (int64_t w = 0; w < m_; ++w) {
        uint64_t& a = r_.registers[size_t(i * m_ + w)];
        uint64_t R = read_value_[size_t(i * m_ + w)];
        switch (ops_[size_t(i)].update) {
          case RegisterUpdate::keep: break;
          case RegisterUpdate::load: a = R; break;
          case RegisterUpdate::reg_op_read: a = combine_dyn(k_, a, R); break;
          case RegisterUpdate::read_op_reg: a = combine_dyn(k_, R, a); break;
        }
      }
  }

  // Write phase, in processor order (priority: the first writer stays; arbitrary: the last wins;
  // combining: fold in order; common: every later value must equal the first).
  void write_phase(const std::string& at, PramStepStats& st) {
    std::fill(first_writer_.begin(), first_writer_.end(), -1);
    for (int64_t i = 0; i < n_; ++i) {
      int64_t cell = ops_[size_t(i)].write;
      if (cell < 0) continue;
      ++st.writes;
      uint64_t* dst = r_.cells.data() + cell * m_;
      const uint64_t* val = r_.registers.data() + i * m_;
      int64_t first = first_writer_[size_t(cell)];
      if (first < 0) {
        first_writer_[size_t(cell)] = i;
        std::copy(val, val + m_, dst);
        continue;
      }
      std::string who = "processors " + std::to_string(first) + " and " + std::to_string(i);
      switch (c_.rule) {
        case PramRule::erew:
        case PramRule::crew:
          throw ScheduleError(at + who + " both write cell " + std::to_string(cell) + ", which the " + upper_rule(c_.rule) +
                              " rule forbids");
        case PramRule::crcw_common:
          if (!std::equal(val, val + m_, dst))
            throw ScheduleError(at + who + " write different values to cell " + std::to_string(cell) +
                                ", which the common CRCW rule forbids");
          break;
        case PramRule::crcw_arbitrary: std::copy(val, val + m_, dst); break;
        case PramRule::crcw_priority: break;
        case PramRule::crcw_combining:
          for (int64_t w = 0; w < m_; ++w) dst[w] = combine_dyn(k_, dst[w], val[w]);
          break;
      }
    }
  }

  // Reference: the operation's meaning on the registers; the number of words that differ.
  int64_t count_mismatches() const {
    const Operation op = c_.algorithm->op;
    int64_t mismatches = 0;
    auto expect = [&](int64_t i, int64_t w, uint64_t v) { mismatches += r_.registers[size_t(i * m_ + w)] != v; };
    auto op_fn = [&](uint64_t x, uint64_t y) { return combine_dyn(k_, x, y); };
    for (int64_t w = 0; w < m_; ++w) {
      std::vector<uint64_t> a(static_cast<size_t>(n_));
      for (int64_t i = 0; i < n_; ++i) a[size_t(i)] = input(i, w);
      if (op == Operation::broadcast) {
        for (int64_t i = 0; i < n_; ++i) expect(i, w, a[0]);
      } else if (op == Operation::reduce) {
        expect(0, w, std::accumulate(a.begin() + 1, a.end(), a[0], op_fn));
      } else {
        std::vector<uint64_t> prefix(static_cast<size_t>(n_));
        std::inclusive_scan(a.begin(), a.end(), prefix.begin(), op_fn);
        for (int64_t i = 0; i < n_; ++i) expect(i, w, prefix[size_t(i)]);
      }
    }
    return mismatches;
  }

  const PramConfig& c_;
  const int64_t n_, m_;
  const OperatorKind k_;
  PramResult r_;
  std::vector<PramOps> ops_;
  std::vector<int64_t> first_reader_, first_writer_;
  std::vector<uint64_t> read_value_;
};

}  // namespace

PramResult run_pram(const PramConfig& c) {
  check_pram_config(c);
  const auto start = std::chrono::steady_clock::now();
  PramResult r = PramMachine(c).run();
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace ppsim
