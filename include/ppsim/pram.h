// The shared-memory machine of the group-operations slides (docs/DESIGN.md §5): N processors, each with an m-word register,
// and a shared array A of N cells of m words. A step has a read phase (every processor reads at most
// one cell, seeing the array as it was at the start of the step), a local update of its register,
// and a write phase (every processor writes at most one cell with its register). The rules decide
// who may touch a cell in the same phase:
//   EREW                 one reader and one writer per cell and phase
//   CREW                 many readers; one writer
//   CRCW common          many writers if they all write the same value
//   CRCW arbitrary       many writers; one of them wins (ppsim: the highest-numbered)
//   CRCW priority        many writers; the lowest-numbered wins
//   CRCW combining       many writers; the cell gets their values folded with ⊕ in processor order
// A read and a write of one cell in the same step are different phases and never conflict.
// Processors and cells are numbered from 0 (the slides' P_1 and A(1) are processor 0 and cell 0).
#pragma once
#include <string>
#include <vector>

#include "ppsim/hd.h"
#include "ppsim/operation.h"
#include "ppsim/operators.h"

namespace ppsim {

enum class PramRule : int8_t { erew, crew, crcw_common, crcw_arbitrary, crcw_priority, crcw_combining };
const char* pram_rule_name(PramRule r);                              // "erew", "crew", "crcw-common", ...
bool parse_pram_machine(const std::string& machine, PramRule& out);  // "pram-erew", ...

enum class RegisterUpdate : int8_t {
  keep,         // a unchanged
  load,         // a := R
  reg_op_read,  // a := a ⊕ R
  read_op_reg,  // a := R ⊕ a
};

// What one processor does in one step.
struct PramOps {
  int64_t read = -1;  // cell read in the read phase, or -1
  RegisterUpdate update = RegisterUpdate::keep;
  int64_t write = -1;  // cell written with the (updated) register in the write phase, or -1
};

struct PramParams {
  int64_t n = 1;  // processors (and cells)
  int64_t m = 1;  // words per register and per cell
};

enum class PramAlgorithmId : int16_t;

struct PramAlgorithmInfo {
  PramAlgorithmId id;
  const char* name;
  const char* description;
  Operation op;
  PramRule weakest_rule;  // the least permissive rule under which it is correct
  int (*steps)(const PramParams&);
};

const std::vector<PramAlgorithmInfo>& pram_algorithms();
const PramAlgorithmInfo* find_pram_algorithm(const std::string& name);
const PramAlgorithmInfo* default_pram_algorithm(Operation op);

struct PramConfig {
  PramRule rule = PramRule::erew;
  const PramAlgorithmInfo* algorithm = nullptr;
  PramParams params;
  OperatorKind combine = OperatorKind::sum;
  InputSpec input;
  bool trace = false;
  // Tests only: replaces the algorithm's per-step ops to provoke rule violations.
  PramOps (*test_ops_override)(const PramParams&, int64_t proc, int step) = nullptr;
};

struct PramStepStats {
  int64_t step = 0, reads = 0, writes = 0;
};

struct PramResult {
  int64_t steps = 0, reads = 0, writes = 0;
  std::vector<PramStepStats> per_step;
  std::vector<uint64_t> registers, cells;  // [proc * m + w], [cell * m + w]
  struct Snapshot {
    std::vector<uint64_t> registers, cells;
  };
  std::vector<Snapshot> trace;  // trace[j]: after step j (trace[0]: the initial state)
  bool verified = false;
  int64_t mismatches = 0;
  double wall_seconds = 0;
};

// Runs the configuration. Throws ConfigError (bad parameters) or ScheduleError (a rule is broken:
// the message names the step, the cell and the processors).
PramResult run_pram(const PramConfig& c);

}  // namespace ppsim
