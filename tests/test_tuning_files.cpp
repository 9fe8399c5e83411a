// `ppsim best --emit`: the tuning files for Open MPI and MPICH. Each file is read back by a strict
// parser of its format's grammar, and every (p, m) cell of the grid must select the algorithm that
// wins the simulation among those the library has, recomputed here with the library API.
//
// The grammars and numbers are the libraries' own:
// - Open MPI classic rules file (ompi/mca/coll/tuned/coll_tuned_dynamic_file.c; algorithm ids from
//   docs/tuning-apps/coll-tuned.rst): integers separated by white space, `#` comments to the end of
//   the line; ncollectives { id ncomsizes { comsize nrules { bytes alg faninout segsize } } }, the
//   first rule of a size at 0 bytes, sizes and bytes ascending. A communicator of size c takes the
//   largest comsize <= c; a message of b bytes the largest rule bytes <= b.
// - MPICH selection JSON (src/mpi/coll/src/csel.c): nested objects, keys tried in order, "<=" chains
//   ending in "=any", leaves {"algorithm=MPIR_<Coll>_intra_<name>": {}}.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "ppsim/algorithm.h"
#include "ppsim/bounds.h"
#include "ppsim/cuda_backend.h"
#include "ppsim/engine.h"
#include "test_helpers.h"

namespace {

namespace fs = std::filesystem;
using ppsim::testing_support::make_config;

// A scratch directory per test.
fs::path scratch(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("ppsim_tuning_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

struct Cli {
  int rc;
  std::string err;
};
Cli run_ppsim(const std::string& args, const fs::path& dir) {
  const fs::path out = dir / "stdout.txt", err = dir / "stderr.txt";
  const std::string cmd =
      std::string("cd '") + dir.string() + "' && '" + PPSIM_EXE + "' " + args + " >'" + out.string() + "' 2>'" + err.string() + "'";
  int status = std::system(cmd.c_str());
  std::ifstream e(err);
  std::stringstream ss;
  ss << e.rdbuf();
  return {WEXITSTATUS(status), ss.str()};
}

std::string read_file(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// ---- Open MPI: a strict reader of the classic format ----

struct OmpiRule {
  int64_t bytes, alg, faninout, segsize;
};
struct OmpiFile {
  int64_t collective = -1;
  std::vector<std::pair<int64_t, std::vector<OmpiRule>>> sizes;  // (comsize, rules)
};

// Integers only: decimal, no sign, no leading zero (Open MPI reads them with %li, where 010 is 8).
OmpiFile parse_ompi_rules(const std::string& text) {
  std::vector<int64_t> tokens;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    line = line.substr(0, line.find('#'));
    std::istringstream words(line);
    std::string w;
    while (words >> w) {
      for (char ch : w)
        if (!std::isdigit(static_cast<unsigned char>(ch))) throw std::runtime_error("not a non-negative integer: '" + w + "'");
      if (w.size() > 1 && w[0] == '0') throw std::runtime_error("leading zero (octal to %li): '" + w + "'");
      tokens.push_back(std::stoll(w));
    }
  }
  size_t at = 0;
  auto next = [&](const char* what) {
    if (at == tokens.size()) throw std::runtime_error(std::string("file ends before ") + what);
    return tokens[at++];
  };
  OmpiFile f;
  if (next("the number of collectives") != 1) throw std::runtime_error("ppsim writes one collective");
  f.collective = next("the collective id");
  if (f.collective >= 16) throw std::runtime_error("collective id beyond COLLCOUNT");
  const int64_t nsizes = next("the number of communicator sizes");
  for (int64_t s = 0; s < nsizes; ++s) {
    const int64_t comsize = next("a communicator size");
    if (!f.sizes.empty() && comsize <= f.sizes.back().first) throw std::runtime_error("communicator sizes must ascend");
    const int64_t nrules = next("the number of rules");
    if (nrules < 1) throw std::runtime_error("a communicator size without rules");
    std::vector<OmpiRule> rules;
    for (int64_t r = 0; r < nrules; ++r) {
      OmpiRule rule{next("message size"), next("algorithm"), next("fan-in/out"), next("segment size")};
      if (r == 0 && rule.bytes != 0) throw std::runtime_error("the first rule must be for 0 bytes");
      if (r > 0 && rule.bytes <= rules.back().bytes) throw std::runtime_error("message sizes must ascend");
      if (rule.alg < 1) throw std::runtime_error("algorithm 0 means 'fixed rules'");
      rules.push_back(rule);
    }
    f.sizes.push_back({comsize, rules});
  }
  if (at != tokens.size()) throw std::runtime_error("numbers after the last rule");
  return f;
}

// What Open MPI selects for a communicator of p processes and a message of `bytes` (0: fixed rules).
int64_t ompi_select(const OmpiFile& f, int64_t p, int64_t bytes) {
  const std::vector<OmpiRule>* rules = nullptr;
  for (const auto& [size, r] : f.sizes)
    if (size <= p) rules = &r;
  if (!rules) return 0;
  int64_t alg = 0;
  for (const auto& r : *rules)
    if (r.bytes <= bytes) alg = r.alg;
  return alg;
}

// ---- MPICH: the nesting, the keys, the first match ----

int64_t key_bound(const std::string& key, const std::string& prefix) {
  if (key == prefix + "=any") return INT64_MAX;
  if (key.rfind(prefix + "<=", 0) != 0) throw std::runtime_error("expected " + prefix + "<=N or " + prefix + "=any, got " + key);
  const std::string n = key.substr(prefix.size() + 2);
  for (char ch : n)
    if (!std::isdigit(static_cast<unsigned char>(ch))) throw std::runtime_error("not a number in " + key);
  return std::stoll(n);
}

// Checks a chain of "<=" keys ending in "=any" with ascending bounds; returns (bound, value) in order.
std::vector<std::pair<int64_t, const nlohmann::ordered_json*>> chain(const nlohmann::ordered_json& obj, const std::string& prefix) {
  if (!obj.is_object() || obj.empty()) throw std::runtime_error("expected a non-empty object of " + prefix + " keys");
  std::vector<std::pair<int64_t, const nlohmann::ordered_json*>> out;
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    const int64_t bound = key_bound(it.key(), prefix);
    if (!out.empty() && bound <= out.back().first) throw std::runtime_error(prefix + " bounds must ascend");
    if (bound == INT64_MAX && std::next(it) != obj.end()) throw std::runtime_error(prefix + "=any must come last");
    out.push_back({bound, &it.value()});
  }
  if (out.back().first != INT64_MAX) throw std::runtime_error("a chain of " + prefix + "<= keys must end in " + prefix + "=any");
  return out;
}

// The algorithm of a leaf: {"algorithm=NAME": {}}.
std::string leaf(const nlohmann::ordered_json& obj) {
  if (!obj.is_object() || obj.size() != 1) throw std::runtime_error("a leaf holds one algorithm");
  const std::string key = obj.begin().key();
  if (key.rfind("algorithm=", 0) != 0 || !obj.begin().value().is_object() || !obj.begin().value().empty())
    throw std::runtime_error("bad leaf " + obj.dump());
  return key.substr(10);
}

struct MpichFile {
  nlohmann::ordered_json doc;
  std::string collective, size_key;  // size_key: avg_msg_size, total_msg_size, or "" (barrier)
};

MpichFile parse_mpich_json(const std::string& text, const std::string& collective, const std::string& size_key) {
  MpichFile f{nlohmann::ordered_json::parse(text), collective, size_key};
  if (!f.doc.is_object() || f.doc.size() != 1 || f.doc.begin().key() != "collective=" + collective)
    throw std::runtime_error("top level must be one collective=" + collective);
  const auto& intra = f.doc.begin().value();
  if (!intra.is_object() || intra.size() != 1 || intra.begin().key() != "comm_type=intra")
    throw std::runtime_error("expected comm_type=intra");
  for (const auto& [bound, node] : chain(intra.begin().value(), "comm_size")) {
    (void)bound;
    if (size_key.empty()) leaf(*node);
    else
      for (const auto& [b, alg] : chain(*node, size_key)) {
        (void)b;
        leaf(*alg);
      }
  }
  return f;
}

std::string mpich_select(const MpichFile& f, int64_t p, int64_t bytes) {
  for (const auto& [bound, node] : chain(f.doc.begin().value().begin().value(), "comm_size")) {
    if (p > bound) continue;
    if (f.size_key.empty()) return leaf(*node);
    for (const auto& [b, alg] : chain(*node, f.size_key))
      if (bytes <= b) return leaf(*alg);
  }
  return "";
}

// ---- the simulated winners, recomputed ----

// Simulated time of every algorithm of `op` that runs at (p, m) on `topo`, with t_s = 100, t_w = 1.
std::map<std::string, double> simulate_all(ppsim::Operation op, ppsim::TopologyKind topo, int64_t p, int64_t m) {
  std::map<std::string, double> times;
  for (const auto& a : ppsim::algorithms()) {
    if (a.op != op) continue;
    try {
      ppsim::RunConfig c = make_config(a.name, topo, p, "", m);
      c.cost.ts = 100;
      c.cost.tw = 1;
      ppsim::validate_config(c);
      times[a.name] = ppsim::run_cpu(c).time;
    } catch (const std::exception&) {  // not for this topology, p or m
    }
  }
  return times;
}

// The library's choice must be an algorithm of least simulated time among those it has.
// `names`: ppsim name -> what the library calls it (Open MPI's number as text, or MPICH's name).
void expect_winner(const std::map<std::string, double>& times, const std::map<std::string, std::string>& names, const std::string& chosen,
                   const std::string& cell) {
  double best = INFINITY;
  for (const auto& [n, t] : times)
    if (names.count(n)) best = std::min(best, t);
  ASSERT_TRUE(std::isfinite(best)) << cell << ": none of the library's algorithms ran";
  bool ok = false;
  std::string winners;
  for (const auto& [n, t] : times)
    if (names.count(n) && t == best) {
      ok = ok || names.at(n) == chosen;
      winners += " " + n + "=" + names.at(n);
    }
  EXPECT_TRUE(ok) << cell << ": file chose " << chosen << ", simulated winners:" << winners;
}

// Open MPI's numbers (docs/tuning-apps/coll-tuned.rst) and MPICH's names (csel_container.c) for the
// algorithms ppsim shares with them.
const std::map<std::string, std::string> kOmpiAllreduce = {{"allreduce_reduce_broadcast", "2"},
                                                           {"allreduce_hypercube", "3"},
                                                           {"allreduce_ring_ompi", "4"},
                                                           {"allreduce_rabenseifner_ompi", "6"},
                                                           {"allreduce_rs_ag", "6"}};
const std::map<std::string, std::string> kMpichAllreduce = {{"allreduce_hypercube", "MPIR_Allreduce_intra_recursive_doubling"},
                                                            {"allreduce_ring", "MPIR_Allreduce_intra_ring"},
                                                            {"allreduce_rabenseifner", "MPIR_Allreduce_intra_reduce_scatter_allgather"},
                                                            {"allreduce_rs_ag", "MPIR_Allreduce_intra_reduce_scatter_allgather"}};
const std::map<std::string, std::string> kOmpiAllgather = {{"allgather_bruck", "2"}, {"allgather_hypercube", "3"}, {"allgather_ring", "4"}};
const std::map<std::string, std::string> kMpichAllgather = {{"allgather_bruck", "MPIR_Allgather_intra_brucks"},
                                                            {"allgather_hypercube", "MPIR_Allgather_intra_recursive_doubling"},
                                                            {"allgather_ring", "MPIR_Allgather_intra_ring"}};

const std::vector<int64_t> kPs = {4, 8, 16, 32};
const std::vector<int64_t> kMs = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024};
const char* kGrid = "--p 2^2..2^5 --m 1..2^10 --ts 100 --tw 1";

TEST(TuningFiles, OmpiRulesAllreduceNameTheSimulatedWinner) {
  const fs::path dir = scratch("ompi_allreduce");
  Cli r = run_ppsim(std::string("best --op allreduce --topology full ") + kGrid + " --emit ompi-rules rules.txt", dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  const std::string text = read_file(dir / "rules.txt");
  OmpiFile f = parse_ompi_rules(text);
  EXPECT_EQ(f.collective, 2);  // allreduce in Open MPI's COLLTYPE enum
  EXPECT_NE(text.find("# left out (Open MPI has no such algorithm):"), std::string::npos);
  EXPECT_NE(text.find("allreduce_ring_allgather"), std::string::npos);  // listed as left out
  for (int64_t p : kPs)
    for (int64_t m : kMs) {
      const auto times = simulate_all(ppsim::Operation::allreduce, ppsim::TopologyKind::full, p, m);
      expect_winner(times, kOmpiAllreduce, std::to_string(ompi_select(f, p, 8 * m)), "p=" + std::to_string(p) + " m=" + std::to_string(m));
    }
}

TEST(TuningFiles, MpichJsonAllreduceNameTheSimulatedWinner) {
  const fs::path dir = scratch("mpich_allreduce");
  Cli r = run_ppsim(std::string("best --op allreduce --topology full ") + kGrid + " --emit mpich-json sel.json", dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  MpichFile f = parse_mpich_json(read_file(dir / "sel.json"), "allreduce", "avg_msg_size");
  for (int64_t p : kPs)
    for (int64_t m : kMs) {
      const auto times = simulate_all(ppsim::Operation::allreduce, ppsim::TopologyKind::full, p, m);
      expect_winner(times, kMpichAllreduce, mpich_select(f, p, 8 * m), "p=" + std::to_string(p) + " m=" + std::to_string(m));
    }
}

// All-gather: Open MPI counts the bytes of all p blocks; MPICH selects it by total_msg_size.
TEST(TuningFiles, AllgatherCountsAllBlocks) {
  const fs::path dir = scratch("allgather");
  Cli r = run_ppsim(std::string("best --op allgather --topology ring ") + kGrid + " --emit ompi-rules rules.txt", dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  r = run_ppsim(std::string("best --op allgather --topology ring ") + kGrid + " --emit mpich-json sel.json", dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  OmpiFile o = parse_ompi_rules(read_file(dir / "rules.txt"));
  EXPECT_EQ(o.collective, 0);  // allgather
  MpichFile j = parse_mpich_json(read_file(dir / "sel.json"), "allgather", "total_msg_size");
  for (int64_t p : kPs)
    for (int64_t m : kMs) {
      const auto times = simulate_all(ppsim::Operation::allgather, ppsim::TopologyKind::ring, p, m);
      const std::string cell = "p=" + std::to_string(p) + " m=" + std::to_string(m);
      expect_winner(times, kOmpiAllgather, std::to_string(ompi_select(o, p, 8 * m * p)), cell);
      expect_winner(times, kMpichAllgather, mpich_select(j, p, 8 * m * p), cell);
    }
}

// Barrier: Open MPI's rules have one rule at 0 bytes a size; MPICH selects by communicator size only.
TEST(TuningFiles, BarrierSelectsByCommunicatorSize) {
  const fs::path dir = scratch("barrier");
  const std::string grid = "best --op barrier --topology full --p 2,3,5,8,17,32 --m 1 --ts 100 --tw 1";
  Cli r = run_ppsim(grid + " --emit ompi-rules rules.txt", dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  r = run_ppsim(grid + " --emit mpich-json sel.json", dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  OmpiFile o = parse_ompi_rules(read_file(dir / "rules.txt"));
  EXPECT_EQ(o.collective, 6);  // barrier
  MpichFile j = parse_mpich_json(read_file(dir / "sel.json"), "barrier", "");
  const std::map<std::string, std::string> ompi = {{"barrier_dissemination", "4"}, {"barrier_binomial", "6"}};
  const std::map<std::string, std::string> mpich = {{"barrier_dissemination", "MPIR_Barrier_intra_k_dissemination"}};
  for (int64_t p : {2, 3, 5, 8, 17, 32}) {
    const auto times = simulate_all(ppsim::Operation::barrier, ppsim::TopologyKind::full, p, 1);
    expect_winner(times, ompi, std::to_string(ompi_select(o, p, 0)), "p=" + std::to_string(p));
    expect_winner(times, mpich, mpich_select(j, p, 0), "p=" + std::to_string(p));
  }
}

TEST(TuningFiles, ParsersRejectWhatTheLibrariesRefuse) {
  EXPECT_THROW(parse_ompi_rules("1 2 1 4 1 8 3 0 0\n"), std::runtime_error);   // first rule not at 0 bytes
  EXPECT_THROW(parse_ompi_rules("1 2 1 4 1 0 3 0\n"), std::runtime_error);     // rule cut short
  EXPECT_THROW(parse_ompi_rules("1 2 1 4 1 0 03 0 0\n"), std::runtime_error);  // octal to %li
  EXPECT_NO_THROW(parse_ompi_rules("1 # n\n2 1 4 1\n0 3 0 0 # rule\n"));       // comments
  EXPECT_THROW(parse_mpich_json(R"({"collective=allreduce":{"comm_type=intra":{"comm_size<=4":{"avg_msg_size=any":{"algorithm=X":{}}}}}})",
                                "allreduce", "avg_msg_size"),
               std::runtime_error);  // a comm_size chain without comm_size=any
}

TEST(TuningFiles, BadInputIsOneLineExitTwoAndNoFile) {
  const fs::path dir = scratch("bad");
  const std::vector<std::string> bad = {
      std::string("best --op allreduce --topology full ") + kGrid + " --emit ompi-json out.txt",  // unknown format
      std::string("best --op scan --topology full ") + kGrid + " --emit ompi-rules out.txt",      // Open MPI tunes no scan here
      std::string("best --op scan --topology full ") + kGrid + " --emit mpich-json out.txt",
      std::string("best --op allreduce --topology full --p 0..4 --m 1 --emit ompi-rules out.txt"),  // a range from 0
      std::string("best --op allreduce --topology full ") + kGrid + " --emit ompi-rules missing/out.txt",
  };
  for (const auto& args : bad) {
    Cli r = run_ppsim(args, dir);
    EXPECT_EQ(r.rc, 2) << args;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
    EXPECT_FALSE(fs::exists(dir / "out.txt")) << args;
    EXPECT_FALSE(fs::exists(dir / "out.txt.tmp")) << args;
  }
}

TEST(TuningFiles, HeatMapIsDrawn) {
  if (std::system("command -v gnuplot >/dev/null 2>&1") != 0) GTEST_SKIP() << "gnuplot is not installed";
  const fs::path dir = scratch("plot");
  Cli r = run_ppsim(std::string("best --op broadcast --topology full ") + kGrid + " --plot map.svg", dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  const std::string svg = read_file(dir / "map.svg");
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.find("broadcast binomial"), std::string::npos);  // a colour-box label
  EXPECT_FALSE(fs::exists(dir / "map.svg.tmp.svg"));
}

}  // namespace

// The reduce rules choose among the variants Open MPI runs: binomial (5), k-nomial (8) and its own
// Rabenseifner (7), at p that are and are not powers of two; Rabenseifner wins somewhere.
TEST(TuningFiles, OmpiRulesReduceNameTheSimulatedWinner) {
  const fs::path dir = scratch("ompi_reduce");
  Cli r = run_ppsim("best --op reduce --topology full --p 4,6,8,12 --m 1..2^10 --ts 100 --tw 1 --emit ompi-rules rules.txt", dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  const std::string text = read_file(dir / "rules.txt");
  OmpiFile f = parse_ompi_rules(text);
  EXPECT_EQ(f.collective, 11);  // reduce
  const std::map<std::string, std::string> ompi = {{"reduce_binomial", "5"}, {"reduce_rabenseifner_ompi", "7"}, {"reduce_knomial", "8"}};
  bool rabenseifner = false;
  for (int64_t p : {4, 6, 8, 12})
    for (int64_t m : kMs) {
      const auto times = simulate_all(ppsim::Operation::reduce, ppsim::TopologyKind::full, p, m);
      const int64_t chosen = ompi_select(f, p, 8 * m);
      rabenseifner = rabenseifner || chosen == 7;
      expect_winner(times, ompi, std::to_string(chosen), "p=" + std::to_string(p) + " m=" + std::to_string(m));
    }
  EXPECT_TRUE(rabenseifner) << text;
}

// Open MPI's modified Bruck all-to-all (3) has radix 2 and no parameter: a map run with --radix 3 never
// names it (alltoall_bruck ran at radix 3) and lists it as left out; at --radix 2 it is named where it wins.
TEST(TuningFiles, OmpiRulesNameBruckOnlyAtRadixTwo) {
  const fs::path dir = scratch("ompi_bruck");
  const std::string grid = "best --op alltoall --topology full --p 8,13 --m 1..2^6 --ts 100 --tw 1";
  for (int radix : {2, 3}) {
    SCOPED_TRACE("radix " + std::to_string(radix));
    Cli r = run_ppsim(grid + " --radix " + std::to_string(radix) + " --emit ompi-rules rules.txt", dir);
    ASSERT_EQ(r.rc, 0) << r.err;
    const std::string text = read_file(dir / "rules.txt");
    const OmpiFile f = parse_ompi_rules(text);
    bool bruck = false;
    for (const auto& [p, rules] : f.sizes)
      for (const auto& rule : rules) bruck = bruck || rule.alg == 3;
    EXPECT_EQ(bruck, radix == 2) << text;
    const size_t left_out = text.find("# left out");
    EXPECT_EQ(left_out != std::string::npos && text.find("alltoall_bruck", left_out) < text.find('\n', left_out), radix != 2) << text;
  }
}
