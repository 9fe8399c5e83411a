// Measured collectives to hold predictions against: the rows nccl-tests (all_reduce_perf and its
// siblings) prints, read from its output as it was saved, and the error of a set of predictions.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ppsim {

// One row of an nccl-tests output: one size, out of place and (where printed) in place. Times are
// microseconds, bandwidths GB/s (1e9 B/s), as printed.
struct NcclTestsRow {
  // The size column: the larger of a rank's send and receive buffers. It is count × element size
  // for all_reduce, broadcast and reduce, and count × element size × ranks for all_gather,
  // reduce_scatter and alltoall, whose count is one rank's share.
  int64_t bytes = 0, count = 0;
  std::string type, redop;                   // redop "none" for operations without one ("" where none is printed)
  int64_t root = -1;                         // -1: none printed, or none
  double time_us = 0, algbw = 0, busbw = 0;  // out of place
  bool has_in_place = false;
  double in_place_time_us = 0, in_place_algbw = 0, in_place_busbw = 0;
  int line = 0;  // 1-based line in the file
};

// The rows of an nccl-tests output, in file order. Both row formats are read: the current one
// (size count type redop root, then time algbw busbw #wrong out of place and again in place) and
// the old one (no root, an error magnitude such as 2e-07 for #wrong); #wrong may be N/A, and a row
// may hold the out-of-place half alone. Every other line (# headers and trailers, NCCL INFO, MPI
// warnings, blank lines) is skipped. Throws ConfigError "FILE:LINE: ..." on a line that begins with
// an unsigned integer but is no row, "FILE:1: no nccl-tests rows: ..." when no line is a row, and
// "FILE: cannot be read: ..." (or another refusal of io/input_file.h) when the file is not read.
std::vector<NcclTestsRow> read_nccl_tests_rows(const std::string& path);
// The same, from the text itself; `name` stands for the file in messages.
std::vector<NcclTestsRow> parse_nccl_tests_rows(std::string_view text, const std::string& name);

// Which of a row's two times a comparison holds a prediction to. nccl-tests times the same
// collective twice on the same buffers, out of place and in place; a stall in one of the two (an
// out-of-place time four times the in-place one beside it) says nothing of the machine, so the
// lower of the two is the measurement by default.
enum class MeasuredHalf : int8_t { lower, out_of_place, in_place };
// "lower" | "out-of-place" | "in-place"; false for anything else.
bool parse_measured_half(const std::string& text, MeasuredHalf& half);
struct MeasuredTime {
  double time_us = 0, busbw = 0;
  bool in_place = false;  // the in-place half's
};
// Row r's time and bus bandwidth as `half` reads them: lower takes the in-place half where it is
// printed and faster (the out-of-place one on a tie). Throws ConfigError "FILE:LINE: ..." (file:
// `name`) for in_place on a row that printed no in-place half.
MeasuredTime measured_time(const NcclTestsRow& r, MeasuredHalf half, const std::string& name);

// The error of a set of predictions against their measurements: exp(mean |ln(predicted /
// measured)|) − 1, the geometric mean of each pair's ratio error. 2× too slow and 2× too fast
// weigh the same, and one lucky row does not bring it to 0. Throws std::invalid_argument unless
// both are equally long, not empty, and every value is positive and finite.
double geomean_error(const std::vector<double>& predicted, const std::vector<double>& measured);

}  // namespace ppsim
