// nccl-tests output (host/study/nccl_table.h): the four published all-reduce tables of
// tests/data/nccl read back with their row counts and end rows; both row formats read with the
// lines other programs mix in; every malformed row named by its line; and the geometric-mean
// ratio error of predictions.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "ppsim/errors.h"
#include "study/nccl_table.h"

namespace fs = std::filesystem;
using namespace ppsim;

namespace {

const fs::path kData = PPSIM_NCCL_DATA;

// The message of the ConfigError `f` throws ("" and a failure when it throws none).
std::string config_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no ConfigError";
  return "";
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// What each data file must read back as: the values of /work/shared/nccl/tables.json (the table of
// the same id), typed in here since that folder is not part of the project.
struct Expected {
  const char* id;
  int ranks;  // for busbw = algbw · 2(n−1)/n
  size_t rows;
  int64_t first_bytes;
  double first_time, first_in_place_time;
  int64_t last_bytes;
  double last_time, last_in_place_time, last_busbw;
};
const Expected kTables[] = {
    // oci-bm-gpu4.8-1node-a100-allreduce-default: 1 node x 8 A100, 64 B to 8 GiB.
    {"oci-bm-gpu4.8-1node-a100-allreduce-default", 8, 28, 64, 32.01, 31.82, 8589934592, 63929, 63911, 235.14},
    // aws-p4d-2node-a100-efa-allreduce-default: 2 x p4d.24xlarge, NCCL 2.8.3, old format, 8 B to 1 GiB.
    {"aws-p4d-2node-a100-efa-allreduce-default", 16, 28, 8, 167.5, 167.1, 1073741824, 61556, 61303, 32.71},
    // nccl-tests-309-h100-2node-ib400-allreduce-ring: 2 x 8 H100, Ring forced, 1 MiB to 8 GiB.
    {"nccl-tests-309-h100-2node-ib400-allreduce-ring", 16, 14, 1048576, 156.9, 154.1, 8589934592, 41015, 41056, 392.69},
    // nccl-tests-309-h100-8node-ib400-allreduce-default: 8 x 8 H100, 1 MiB to 8 GiB.
    {"nccl-tests-309-h100-8node-ib400-allreduce-default", 64, 14, 1048576, 117.0, 115.7, 8589934592, 52733, 52754, 320.7},
};

TEST(NcclTable, EachPublishedTableReadsBackWithItsRows) {
  for (const Expected& e : kTables) {
    SCOPED_TRACE(e.id);
    const std::vector<NcclTestsRow> rows = read_nccl_tests_rows((kData / (std::string(e.id) + ".txt")).string());
    ASSERT_EQ(rows.size(), e.rows);
    EXPECT_EQ(rows.front().bytes, e.first_bytes);
    EXPECT_EQ(rows.front().time_us, e.first_time);
    EXPECT_EQ(rows.front().in_place_time_us, e.first_in_place_time);
    EXPECT_EQ(rows.back().bytes, e.last_bytes);
    EXPECT_EQ(rows.back().time_us, e.last_time);
    EXPECT_EQ(rows.back().in_place_time_us, e.last_in_place_time);
    EXPECT_EQ(rows.back().busbw, e.last_busbw);
    for (const NcclTestsRow& r : rows) {
      EXPECT_EQ(r.type, "float");
      EXPECT_EQ(r.redop, "sum");
      EXPECT_EQ(r.root, -1);
      EXPECT_TRUE(r.has_in_place);
      EXPECT_EQ(r.bytes, r.count * 4);
      // The copy is checked against itself: algbw = bytes / time and busbw = algbw · 2(n−1)/n, each
      // within the rounding of two decimals (and of the printed time).
      const double factor = 2.0 * (e.ranks - 1) / e.ranks;
      for (const auto& [time, algbw, busbw] :
           {std::tuple{r.time_us, r.algbw, r.busbw}, std::tuple{r.in_place_time_us, r.in_place_algbw, r.in_place_busbw}}) {
        const double bw = double(r.bytes) / (time * 1e3);
        const double half_unit = time >= 10000 ? 0.5 : time >= 100 ? 0.05 : 0.005;  // the time's own rounding
        const double relative = 1.01 * half_unit / time;
        EXPECT_NEAR(algbw, bw, 0.005 + relative * bw) << "line " << r.line;
        EXPECT_NEAR(busbw, bw * factor, 0.005 + relative * bw * factor) << "line " << r.line;
      }
    }
  }
}

TEST(NcclTable, TheCurrentFormatReadsAmongOtherLines) {
  const std::string text =
      "# nThread 1 nGpus 1 minBytes 1048576 maxBytes 8388608 step: 2(factor) warmup iters: 5 iters: 20\n"
      "node1:123:456 [0] NCCL INFO Bootstrap : Using ib0:10.0.0.1<0>\n"
      "\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
      "     1048576        262144     float     sum      -1    156.9    6.68   12.53      0    154.1    6.81   12.76      0\n"
      "[node1:01234] 7 more processes have sent help message help-mpi-btl-openib.txt\n"
      "     2097152        524288     float     sum      -1    156.6   13.39   25.10    N/A    154.9   13.54   25.39    N/A\r\n"
      "\t 4194304 2097152 half prod 0 9.25 0.45 0.45 0 9.5 0.44 0.44 0\n"  // broadcast-like: a real root
      "     8388608        262144     float    none      -1    301.2   27.85   24.37      0    299.0   28.06   24.55      0\n"
      "     1048576        262144     float     sum      -1    150.0    6.99   13.11      0\n"  // out of place alone; sizes repeat
      "# Out of bounds values : 0 OK\n"
      "# Avg bus bandwidth    : 12.34\n";
  const std::vector<NcclTestsRow> rows = parse_nccl_tests_rows(text, "t.txt");
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[0].line, 5);
  EXPECT_EQ(rows[0].bytes, 1048576);
  EXPECT_EQ(rows[0].count, 262144);
  EXPECT_EQ(rows[0].type, "float");
  EXPECT_EQ(rows[0].redop, "sum");
  EXPECT_EQ(rows[0].root, -1);
  EXPECT_EQ(rows[0].time_us, 156.9);
  EXPECT_EQ(rows[0].algbw, 6.68);
  EXPECT_EQ(rows[0].busbw, 12.53);
  EXPECT_TRUE(rows[0].has_in_place);
  EXPECT_EQ(rows[0].in_place_time_us, 154.1);
  EXPECT_EQ(rows[0].in_place_algbw, 6.81);
  EXPECT_EQ(rows[0].in_place_busbw, 12.76);
  EXPECT_EQ(rows[1].line, 7);
  EXPECT_EQ(rows[1].in_place_busbw, 25.39);  // N/A #wrong, and a CRLF line end
  EXPECT_EQ(rows[2].type, "half");
  EXPECT_EQ(rows[2].redop, "prod");
  EXPECT_EQ(rows[2].root, 0);
  EXPECT_EQ(rows[2].in_place_time_us, 9.5);
  // all_gather's size is every rank's share: count × 4 B × 8 ranks.
  EXPECT_EQ(rows[3].redop, "none");
  EXPECT_EQ(rows[3].bytes, 8388608);
  EXPECT_EQ(rows[3].count, 262144);
  EXPECT_FALSE(rows[4].has_in_place);
  EXPECT_EQ(rows[4].time_us, 150.0);
  EXPECT_EQ(rows[4].in_place_time_us, 0.0);
}

TEST(NcclTable, TheOldFormatReadsWithoutARoot) {
  const std::string text =
      "# nThread 1 nGpus 1 minBytes 8 maxBytes 1073741824 step: 2(factor) warmup iters: 5 iters: 1000 validation: 1\n"
      "#       size         count      type   redop     time   algbw   busbw  error     time   algbw   busbw  error\n"
      "           8             2     float     sum    167.5    0.00    0.00  2e-07    167.1    0.00    0.00  1e-07\n"
      "p4d-1:20:20 [0] NCCL INFO NET/OFI Selected Provider is efa\n"
      "  1073741824     268435456     float     sum    61556   17.44   32.71  5e-07    61303   17.52   32.84  5e-07\n"
      "        8192          2048     float    23.12    0.35    0.35  0e+00    22.98    0.36    0.36  0e+00\n"  // no redop
      "        8192          2048     float     sum    23.12    0.35    0.35    N/A\n";
  const std::vector<NcclTestsRow> rows = parse_nccl_tests_rows(text, "old.txt");
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].line, 3);
  EXPECT_EQ(rows[0].bytes, 8);
  EXPECT_EQ(rows[0].redop, "sum");
  EXPECT_EQ(rows[0].root, -1);
  EXPECT_EQ(rows[0].time_us, 167.5);
  EXPECT_EQ(rows[0].in_place_time_us, 167.1);
  EXPECT_EQ(rows[1].line, 5);
  EXPECT_EQ(rows[1].time_us, 61556);
  EXPECT_EQ(rows[1].busbw, 32.71);
  EXPECT_EQ(rows[1].in_place_busbw, 32.84);
  EXPECT_EQ(rows[2].redop, "");
  EXPECT_EQ(rows[2].time_us, 23.12);
  EXPECT_EQ(rows[2].in_place_time_us, 22.98);
  EXPECT_FALSE(rows[3].has_in_place);
  EXPECT_EQ(rows[3].busbw, 0.35);
}

TEST(NcclTable, AJsonFileHasNoRows) {
  const std::string json = "[\n {\n  \"id\": \"x\",\n  \"rows\": [\n   {\n    \"bytes\": 64,\n    \"count\": 16\n   }\n  ]\n }\n]\n";
  const std::string m = config_error([&] { parse_nccl_tests_rows(json, "tables.json"); });
  EXPECT_TRUE(starts_with(m, "tables.json:1: no nccl-tests rows")) << m;
  EXPECT_TRUE(starts_with(config_error([] { parse_nccl_tests_rows("", "empty.txt"); }), "empty.txt:1: no nccl-tests rows"));
  // A CSV's rows begin "1048576," and are no rows either.
  const std::string csv = "size, count, type, redop, root, time\n1048576, 262144, float, sum, -1, 156.9\n";
  EXPECT_TRUE(starts_with(config_error([&] { parse_nccl_tests_rows(csv, "r.csv"); }), "r.csv:1: no nccl-tests rows"));
}

TEST(NcclTable, AMalformedRowIsNamedByItsLine) {
  const std::string head = "# header\nnode:1:2 [0] NCCL INFO x\n";  // the row under test is line 3
  const auto error_of = [&](const std::string& row) { return config_error([&] { parse_nccl_tests_rows(head + row + "\n", "t.txt"); }); };
  const struct {
    const char* row;
    const char* quoted;
  } kCases[] = {
      {"1048576 262144 float sum -1 abc 6.68 12.53 0 154.1 6.81 12.76 0", "'abc'"},        // a time that is no number
      {"1048576 262144 float sum -1 156.9 6.68 12.53 0 154.1 6.81 x12.76 0", "'x12.76'"},  // nor a busbw
      {"1048576 262144 float sum -1 156.9 6.68 12.53 0 inf 6.81 12.76 0", "'inf'"},
      {"1048576 262144 float sum -1 -156.9 6.68 12.53 0 154.1 6.81 12.76 0", "'-156.9'"},
      {"1048576 262144 float sum -1 0.00 6.68 12.53 0 154.1 6.81 12.76 0", "'0.00'"},
      {"1048576 262144 float sum -1 156.9 6.68 12.53 wrong 154.1 6.81 12.76 0", "'wrong'"},
      {"1048576 262144 float sum x 156.9 6.68 12.53 0 154.1 6.81 12.76 0", "'x'"},  // a root that is no integer
      {"1048576 26214x float sum -1 156.9 6.68 12.53 0 154.1 6.81 12.76 0", "'26214x'"},
      {"99999999999999999999 1 float sum -1 156.9 6.68 12.53 0", "'99999999999999999999'"},
      {"1048576 262144 float7 sum -1 156.9 6.68 12.53 0 154.1 6.81 12.76 0", "unknown type 'float7'"},
      {"1048576 262144 float sum -1 156.9 6.68 12.53 0 154.1 6.81", "this one 7"},  // a half cut short
      {"1048576 262144 float sum -1 156.9 6.68 12.53 0 154.1 6.81 12.76 0 1", "this one 10"},
      {"1048576 262144", "a row begins with a size, a count and a type"},
      {"1048576 262145 float sum -1 156.9 6.68 12.53 0 154.1 6.81 12.76 0", "size 1048576 is not count 262145"},
      {"1048576 262144 double sum -1 156.9 6.68 12.53 0 154.1 6.81 12.76 0", "size 1048576 is not count 262144 × 8 bytes"},
      {"1048576 0 float sum -1 156.9 6.68 12.53 0", "size 1048576 is not count 0"},
  };
  for (const auto& c : kCases) {
    const std::string m = error_of(c.row);
    EXPECT_TRUE(starts_with(m, "t.txt:3: ")) << c.row << "\n" << m;
    EXPECT_NE(m.find(c.quoted), std::string::npos) << c.row << "\n" << m;
  }
  // The check of sizes takes every rank's share (all_gather, reduce_scatter, alltoall), and an
  // empty share, but only whole multiples of count × element size.
  EXPECT_EQ(parse_nccl_tests_rows("8388608 262144 float sum -1 301.2 27.85 24.37 0\n", "rs.txt")[0].count, 262144);
  EXPECT_EQ(parse_nccl_tests_rows("0 0 float none -1 5.12 0.00 0.00 0\n", "ag.txt")[0].bytes, 0);
  EXPECT_TRUE(starts_with(error_of("1048576 100000 float none -1 156.9 6.68 12.53 0"), "t.txt:3: size 1048576"));
}

TEST(NcclTable, AFileThatCannotBeReadIsRefused) {
  const std::string missing = (kData / "no-such-table.txt").string();
  const std::string m = config_error([&] { read_nccl_tests_rows(missing); });
  EXPECT_TRUE(starts_with(m, missing + ": cannot be read")) << m;
  const std::string d = config_error([&] { read_nccl_tests_rows(kData.string()); });
  EXPECT_TRUE(starts_with(d, kData.string() + ": ")) << d;
}

// The time a comparison reads from a row: by default the lower of its two halves, so that a stall
// in one (the published eight-node H100 table's out-of-place 8 MiB: 1272.4 us beside 321.4 in
// place) is not taken for the machine; either half where asked, and a clear refusal where a row
// has no in-place half.
TEST(NcclTable, TheMeasuredTimeIsTheLowerHalfUnlessOneIsAsked) {
  const std::vector<NcclTestsRow> rows = parse_nccl_tests_rows(
      "     8388608       2097152     float     sum      -1   1272.4    6.59   12.98      0    321.4   26.10   51.38      0\n"
      "     4194304       1048576     float     sum      -1    203.8   20.58   40.52      0    205.1   20.45   40.26      0\n"
      "     1048576        262144     float     sum      -1    117.0    8.96   17.64      0\n",
      "rows.txt");
  ASSERT_EQ(rows.size(), 3u);
  MeasuredHalf half = MeasuredHalf::in_place;
  ASSERT_TRUE(parse_measured_half("lower", half));
  EXPECT_EQ(half, MeasuredHalf::lower);
  const MeasuredTime stall = measured_time(rows[0], half, "rows.txt");
  EXPECT_EQ(stall.time_us, 321.4);
  EXPECT_EQ(stall.busbw, 51.38);
  EXPECT_TRUE(stall.in_place);
  const MeasuredTime steady = measured_time(rows[1], half, "rows.txt");
  EXPECT_EQ(steady.time_us, 203.8);
  EXPECT_FALSE(steady.in_place);
  EXPECT_EQ(measured_time(rows[2], half, "rows.txt").time_us, 117.0);  // no in-place half: the out-of-place one
  ASSERT_TRUE(parse_measured_half("out-of-place", half));
  EXPECT_EQ(measured_time(rows[0], half, "rows.txt").time_us, 1272.4);
  ASSERT_TRUE(parse_measured_half("in-place", half));
  EXPECT_EQ(measured_time(rows[1], half, "rows.txt").time_us, 205.1);
  try {
    measured_time(rows[2], half, "rows.txt");
    ADD_FAILURE() << "a row without an in-place half was read in place";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("rows.txt:3: ", 0), 0u) << e.what();
  }
  EXPECT_FALSE(parse_measured_half("min", half));
  EXPECT_FALSE(parse_measured_half("", half));
}

TEST(NcclTable, GeomeanErrorIsTheMeanRatioError) {
  const std::vector<double> measured = {32.01, 156.9, 1272.4, 41015, 63929, 167.5, 0.5, 3e7};
  std::vector<double> twice, half_and_twice;
  for (size_t i = 0; i < measured.size(); ++i) {
    twice.push_back(2 * measured[i]);
    half_and_twice.push_back(i % 2 ? 2 * measured[i] : measured[i] / 2);
  }
  EXPECT_EQ(geomean_error(measured, measured), 0.0);
  EXPECT_EQ(geomean_error(twice, measured), 1.0);
  EXPECT_EQ(geomean_error({2.0, 0.5}, {1.0, 1.0}), 1.0);  // 2x too slow and 2x too fast weigh the same
  EXPECT_EQ(geomean_error(half_and_twice, measured), 1.0);
  EXPECT_DOUBLE_EQ(geomean_error({2.0, 1.0}, {1.0, 1.0}), std::sqrt(2.0) - 1);  // one exact row halves the log, not the error
  // A ratio past double's range (1e400) is taken as the difference of the logs.
  EXPECT_NEAR(geomean_error({1e200, 1.0}, {1e-200, 1.0}) / 1e200, 1.0, 1e-9);

  EXPECT_THROW(geomean_error({1.0, 2.0}, {1.0}), std::invalid_argument);
  EXPECT_THROW(geomean_error({}, {}), std::invalid_argument);
  EXPECT_THROW(geomean_error({0.0}, {1.0}), std::invalid_argument);
  EXPECT_THROW(geomean_error({1.0}, {-1.0}), std::invalid_argument);
  EXPECT_THROW(geomean_error({std::nan("")}, {1.0}), std::invalid_argument);
  EXPECT_THROW(geomean_error({1.0}, {INFINITY}), std::invalid_argument);
}

}  // namespace
