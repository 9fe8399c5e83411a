// `ppsim best` over a grid of p and m: the crossover map (the winner of every cell), and the tuning
// files real MPI libraries read (Open MPI coll_tuned rules, MPICH selection JSON). Its heat map is
// the command line's drawing (cli/plot.h).
#pragma once
#include <string>
#include <vector>

#include "study/ranking.h"

namespace ppsim::study {

// One row of the map: every m ranked at one p (rows empty when nothing ran at that p).
struct CrossoverRow {
  int64_t p = 0;
  BestResult ranking;
  std::string refused;  // why nothing ran at this p ("" when something did)
};
struct CrossoverMap {
  Operation op = Operation::allreduce;
  std::string topology;
  int64_t radix = 2;     // --radix: the fan-out of the k-nomial trees
  int64_t segments = 1;  // --segments: the pipelined broadcasts' segments
  std::vector<int64_t> ps, ms;
  std::vector<CrossoverRow> rows;  // one per p, in order
};

// Ranks the candidates (as `best` does) at every p of b.run.p (a list or range) and every m of b.m,
// all planned and their time checked first (ranking.cpp). A p where nothing runs keeps an empty row
// and the reason; UsageError when nothing runs anywhere.
CrossoverMap crossover_map(const BestOptions& b);

// The file formats --emit writes.
enum class TuningFormat { ompi_rules, mpich_json };
// "ompi-rules" or "mpich-json"; anything else is a UsageError.
TuningFormat parse_tuning_format(const std::string& text);

// What a library calls a ppsim algorithm: Open MPI's coll_tuned algorithm number, MPICH's algorithm
// name. nullptr / 0 where the library has no such algorithm.
int ompi_algorithm_number(const std::string& ppsim_name);
const char* mpich_algorithm_name(const std::string& ppsim_name);

// The winner of a cell among the algorithms the library has (those with a number or a name there, as
// run with --radix `radix`): the index into row.entries, or -1 when none of them ran at that cell.
int library_winner(const BestRow& row, TuningFormat f, int64_t radix);

// The text of the file (Open MPI rules with # comments; MPICH JSON), and the candidates that ran but
// that the library does not have (left out of the file).
std::string tuning_file_text(const CrossoverMap& map, TuningFormat f);
std::vector<std::string> left_out_algorithms(const CrossoverMap& map, TuningFormat f);

}  // namespace ppsim::study
