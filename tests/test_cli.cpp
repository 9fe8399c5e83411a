// The command line as a contract: JSON fields, final buffers, traces, and one-line errors with exit
// code 2 for every invalid option (run through the real executable, from any directory).
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "ppsim/algorithm.h"
#include "ppsim/cuda_backend.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct Outcome {
  int code;
  std::string out, err;
};

std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ppsim_cli_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  Outcome ppsim(const std::string& args) {
    fs::path out = dir_ / "stdout", err = dir_ / "stderr";
    std::string cmd = std::string("'") + PPSIM_EXE + "' " + args + " >'" + out.string() + "' 2>'" + err.string() + "' </dev/null";
    int status = std::system(cmd.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
  }

  fs::path dir_;
};

}  // namespace

TEST_F(Cli, RunWritesTheJsonContract) {
  fs::path file = dir_ / "r.json";
  Outcome o = ppsim("run --topology hypercube --p 8 --op allreduce --m 2 --ts 3 --tw 0.5 --combine interval --json '" + file.string() + "'");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("verified: yes"), std::string::npos);
  json d = json::parse(slurp(file));
  for (const char* key : {"config", "steps", "time", "formula_time", "messages", "words", "link_hops", "max_link_load",
                          "per_step", "verified", "mismatches", "wall_seconds", "final"})
    EXPECT_TRUE(d.contains(key)) << key;
  for (const char* key : {"topology", "p", "dims", "op", "algo", "m", "root", "ports", "lambda", "ts", "tw", "th", "routing",
                          "combine", "input", "backend", "threads", "trace"})
    EXPECT_TRUE(d["config"].contains(key)) << key;
  EXPECT_EQ(d["config"]["algo"], "allreduce_hypercube");
  EXPECT_EQ(d["steps"], 3);
  EXPECT_DOUBLE_EQ(d["time"].get<double>(), 3 * (3 + 0.5 * 2));  // eq. 4-5
  EXPECT_DOUBLE_EQ(d["formula_time"].get<double>(), d["time"].get<double>());
  EXPECT_EQ(d["per_step"].size(), 3u);
  EXPECT_EQ(d["per_step"][0]["messages"], 8);
  EXPECT_TRUE(d["verified"].get<bool>());
  ASSERT_EQ(d["final"]["buffers"]["data"].size(), 8u);
  EXPECT_EQ(d["final"]["buffers"]["data"][5][1], "0:7");
}

TEST_F(Cli, TraceShowsBuffersAndMessagesAfterEveryStep) {
  Outcome o = ppsim("run --topology ring --p 4 --op allgather --combine interval --trace --json -");
  ASSERT_EQ(o.code, 0) << o.err;
  json d = json::parse(o.out);
  ASSERT_EQ(d["trace"].size(), 4u);  // trace[0]: before step 1; trace[j]: after step j
  EXPECT_EQ(d["trace"][0]["buffers"]["data"][1], json::array({"-", "1", "-", "-"}));
  EXPECT_TRUE(d["trace"][0]["messages"].empty());
  // After step 1 processor 1 holds its own block and its left neighbour's.
  EXPECT_EQ(d["trace"][1]["buffers"]["data"][1], json::array({"0", "1", "-", "-"}));
  EXPECT_EQ(d["trace"][3]["buffers"]["data"][1], json::array({"0", "1", "2", "3"}));
  EXPECT_EQ(d["trace"][1]["messages"].size(), 4u);
  EXPECT_EQ(d["trace"][1]["messages"][0]["from"], 0);
  EXPECT_EQ(d["trace"][1]["messages"][0]["to"], 1);
}

TEST_F(Cli, ListNamesEveryAlgorithm) {
  Outcome o = ppsim("list");
  ASSERT_EQ(o.code, 0);
  for (const auto& a : ppsim::algorithms()) EXPECT_NE(o.out.find(a.name), std::string::npos) << a.name;
}

// README's algorithm table is `ppsim list --markdown`, row for row: a new algorithm, topology or
// default shows up there or this fails.
TEST_F(Cli, ReadmeAlgorithmTableIsTheRegistrys) {
  Outcome o = ppsim("list --markdown");
  ASSERT_EQ(o.code, 0) << o.err;
  const std::string readme = slurp(PPSIM_README);
  ASSERT_FALSE(readme.empty()) << PPSIM_README;
  std::istringstream rows(o.out);
  int n = 0;
  for (std::string row; std::getline(rows, row);) {
    if (row.empty()) continue;
    EXPECT_NE(readme.find(row + "\n"), std::string::npos) << "README.md lacks this row of `ppsim list --markdown`:\n" << row;
    ++n;
  }
  EXPECT_GT(n, 40);
}

TEST_F(Cli, MpiNamesAreAliases) {
  Outcome o = ppsim("run --topology ring --p 5 --op MPI_Bcast --root 2");
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("broadcast_binomial"), std::string::npos);
}

// Every whole-number option takes B^E as --p and --m do, and is read in decimal.
TEST_F(Cli, WholeNumbersTakePowers) {
  Outcome o = ppsim("run --topology full --p 2^3 --op scan --algo scan_postal_b --n 2^5 --lambda 2^1 --backend cpu --json -");
  ASSERT_EQ(o.code, 0) << o.err;
  json j = json::parse(o.out);
  EXPECT_EQ(j["config"]["p"], 8);
  EXPECT_EQ(j["config"]["n"], 32);
  EXPECT_EQ(j["config"]["lambda"], 2);
  EXPECT_EQ(j["verified"], true);
  Outcome b = ppsim("bounds --n 2^20 --json");
  ASSERT_EQ(b.code, 0) << b.err;
  EXPECT_EQ(json::parse(b.out)["min_steps"], 20);
}

TEST_F(Cli, EveryInvalidOptionExitsTwoWithOneLine) {
  const char* bad[] = {
      "run --topology moebius --p 8",
      "run --topology ring",
      "run --topology ring --p 0",
      "run --topology ring --p eight",
      "run --topology hypercube --p 12",
      "run --topology tree --p 12",
      "run --topology mesh --p 12",
      "run --topology mesh --dims 4x",
      "run --topology ring --p 8 --dims 2x4",
      "run --topology ring --p 8 --op transmogrify",
      "run --topology ring --p 8 --op broadcast --algo nonesuch",
      "run --topology ring --p 8 --op broadcast --algo allgather_ring",
      "run --topology ring --p 8 --op allgather --algo allgather_mesh",
      "run --topology ring --p 12 --op allgather --algo allgather_hypercube",
      "run --topology ring --p 8 --m 0",
      "run --topology ring --p 8 --op broadcast --root 8",
      "run --topology ring --p 8 --op broadcast --root -1",
      "run --topology ring --p 8 --ports 0",
      "run --topology ring --p 8 --ports sideways",
      "run --topology ring --p 8 --lambda 0",
      "run --topology ring --p 8 --routing wormhole",
      "run --topology ring --p 8 --combine avg",
      "run --topology ring --p 8 --input zeros",
      "run --topology ring --p 8 --input random:x",
      "run --topology ring --p 8 --backend tpu",
      "run --topology ring --p 8 --backend cuda",
      "run --topology ring --p 8 --ts -1",
      "run --topology ring --p 8 --threads -2",
      "run --topology ring --p 2^16 --threads 100000",  // libgomp crashed (SIGSEGV) asked for this many
      "run --topology ring --p 8 --bogus",
      "run --topology ring --p 8 --op reduce --algo reduce_binomial_high_first --combine interval",
      "run --topology ring --p 6 --op reduce --combine affine --root 3",
      "run --topology ring --p 4096 --op allgather --trace",
      "run --topology ring --p 8 --op allgather --algo allgather_ring_bidirectional --ports single",
      "run --topology ring --p 8 --op shift --algo shift_mesh",
      "run --topology torus --dims 2x2x2 --op shift --algo shift_mesh",
      "run --topology hypercube --p 8 --op allreduce --algo allreduce_rs_ag --m 3",
      "run --topology ring --p 8 --op shift --shift -1",
      "run --topology ring --p 8 --op broadcast --exclusive",
      "run --topology full --p 8 --op scan --algo scan_postal_a --exclusive",
      "run --topology full --p 8 --op scan --n 4",
      "run --topology full --p 8 --op scan --algo scan_postal_a --n 20",
      "run --topology full --p 8 --op broadcast --n 20",
      "run --machine pram-erew --op scan --p 8 --topology ring",
      "run --machine pram-eeee --op scan --p 8",
      "run --machine pram-erew --op alltoall --p 8",
      "run --machine pram-erew --op broadcast --algo pram_broadcast_concurrent --p 8",
      "bounds --n 0",
      "bounds --n 9223372036854775807",  // past G's cap (2^62): used to search without end
      // Integers are read in decimal within 64 bits (CLI11 alone clamps to INT64_MAX and reads 010 as 8).
      "run --topology ring --p 8 --op broadcast --root 99999999999999999999",
      "run --topology ring --p 8 --op broadcast --root 010",
      "run --topology ring --p 8 --op broadcast --root 0x3",
      "run --topology ring --p 8 --op broadcast --root 2^99",
      // Sizes refused before they are multiplied out (scan: ceil(n/p) m overflowed into a negative size).
      "run --topology full --p 8 --op scan --algo scan_postal_b --n 9223372036854775807",
      "run --topology full --p 2^20 --op allgather --m 2^44",  // p m = 2^64 wrapped to 0 words

      "run --topology ring --p 12 --op multicast --group-stride 3 --group-size 5",
      "run --topology ring --p 12 --op broadcast --group-size 5",
      "run --topology hypercube --p 16 --op kbroadcast --sources 3",
      "run --topology hypercube --p 16 --op kbroadcast --sources 0",
      "run --topology hypercube --p 16 --logical ring --map snake --op allgather",
      "run --topology hypercube --p 16 --logical ring --logical-dims 4x4 --op allgather",
      "run --topology hypercube --p 16 --map gray --op allgather",
      "run --topology hypercube --p 16 --logical moebius --op allgather",
      "run --topology mesh --dims 3x4 --logical ring --map gray --op allgather",
      "frobnicate",
  };
  for (const char* args : bad) {
    fs::path file = dir_ / "never.json";
    Outcome o = ppsim(std::string(args) + " --json '" + file.string() + "'");
    EXPECT_EQ(o.code, 2) << args;
    EXPECT_EQ(o.err.rfind("ppsim: ", 0), 0u) << args << ": " << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << args << ": " << o.err;
    EXPECT_FALSE(fs::exists(file)) << args << " left a partial output file";
    fs::remove(file);
  }
}

// The tools' bad inputs: exit 2, one line, and no output file (the options are the tools' own).
TEST_F(Cli, ToolsRefuseBadInputWithoutWriting) {
  const std::string out = (dir_ / "out").string();
  const std::vector<std::string> bad = {
      "sweep --op allgather --topology ring --p 8",
      "sweep --op allgather --topology ring --p 2^3..2^1 --csv '" + out + "'",
      "sweep --op allgather --topology ring --p 8 --m 1,,2 --csv '" + out + "'",
      "sweep --op allgather --topology ring --p 8 --ts x --csv '" + out + "'",
      "sweep --op allgather --topology ring --p 8 --csv '" + out + "' --plot x.gif",
      "sweep --op allgather --topology hypercube --p 12 --csv '" + out + "'",
      "sweep --op allgather --topology ring --p 8 --csv '" + out + "' --tc 1",
      "best --op broadcast --topology ring --p 8 --m 0..4",
      "sweep --op allgather --topology ring --p 8 --jobs 5000 --csv '" + out + "'",
      // Ranges are counted as they are made (this one used to fill memory before its size was checked)
      // and stop before overflowing (2^62 doubled wrapped round and never ended; no point can run here).
      "sweep --op allgather --topology ring --p 8 --m 1..2^40:1 --csv '" + out + "'",
      "best --op broadcast --topology ring --p 8 --m 1..2^40:1",
      "sweep --op allgather --topology full --p 2^61..2^62 --csv '" + out + "'",
      "sweep --op allgather --topology full --p 9000000000000000000..9200000000000000000:100000000000000000 --csv '" + out + "'",
      "best --op broadcast --topology ring --p 8 --algo nonesuch",
      "draw --topology ring --p 8 --op broadcast",
      "draw --topology ring --p 8 --op broadcast --kind pie --out '" + out + ".svg'",
      "draw --topology ring --p 8 --op broadcast --out '" + out + ".gif'",
      "draw --topology ring --p 128 --op broadcast --out '" + out + ".svg'",
      // Outputs that cannot be written are refused before the work (a directory used to fail at the
      // end, after the run, leaving its .tmp file; a plot's missing folder after the whole sweep).
      "sweep --op allgather --topology ring --p 8 --csv '" + out + "' --plot /nonexistent/dir/p.svg",
      "run --topology ring --p 8 --json '" + dir_.string() + "'",
      "run --machine pram-erew --op scan --p 8 --json '" + dir_.string() + "'",
      "draw --topology ring --p 8 --op broadcast --format svg --out '" + dir_.string() + "'",
  };
  std::vector<std::string> cases = bad;
  if (!ppsim::cuda_status().usable)  // a sweep on a GPU that is not there
    cases.push_back("sweep --op allreduce --topology hypercube --p 2^4..2^6 --backend cuda --csv '" + out + "'");
  for (const auto& args : cases) {
    Outcome o = ppsim(args);
    EXPECT_EQ(o.code, 2) << args;
    EXPECT_EQ(o.err.rfind("ppsim: ", 0), 0u) << args << ": " << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << args << ": " << o.err;
    for (const char* ext : {"", ".svg", ".gif"}) EXPECT_FALSE(fs::exists(out + ext)) << args << " left a file";
    EXPECT_FALSE(fs::exists(dir_.string() + ".tmp")) << args << " left a temporary file";
  }
}
