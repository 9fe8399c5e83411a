// Open MPI checks ppsim's tuning files. The harness tests/mpi/coll_fingerprint.c
// runs MPI collectives under mpirun and prints, per call, the messages and bytes every rank sent to every
// other rank, as Open MPI's pml_monitoring component counts them. Here they are compared with the same
// counts taken from the schedule of the ppsim algorithm (one send of len words = one message of 8 len
// bytes, ppsim's processor x = MPI rank x, root 0, the fully connected machine):
// - Forced: for every ppsim algorithm that the Open MPI rules name (a nonzero Open MPI number in
//   study/tuning.cpp's table), Open MPI forced to that number (coll_tuned_<collective>_algorithm) must send
//   exactly what ppsim's unit sends, rank by rank and peer by peer, at p that are and are not powers
//   of two and at m that do and do not reach the algorithms' fall-backs. Numbers the installed Open MPI
//   lacks (ompi_info lists the ones it has) are skipped and named. Allreduce 2 runs a reduce and a bcast
//   of Open MPI's own choosing, so it is forced alone, with no reduce or bcast forced beside it.
// - Rules: the file `ppsim best --emit ompi-rules` writes, given to Open MPI as its dynamic rules, makes
//   Open MPI send what the algorithm each rule names sends, at the first and the last m of every rule,
//   where at least one other Open MPI algorithm would have sent something else.
// The harness also counts the empty (0-byte) messages; they are left out of the comparison only for a
// unit that sends empty blocks ppsim cannot send (same_sends below).
// The test skips where mpirun or ompi_info (Open MPI) is missing.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "algorithms/all.h"
#include "ppsim/algorithm.h"
#include "ppsim/engine.h"
#include "test_helpers.h"
#include "study/tuning.h"

namespace {

namespace fs = std::filesystem;

constexpr int64_t kWordBytes = 8;  // as study/tuning.cpp: one word is one MPI_DOUBLE
constexpr int kRadix = 3;          // the k-nomial trees' radix, given to both (not Open MPI's default 4)
// The radix ppsim runs an algorithm with: kRadix for the k-nomial trees and for Open MPI's
// nonoverlapping all-reduce (its bcast may be the k-nomial one, at the same MCA radix); 2 elsewhere
// (Open MPI's modified Bruck all-to-all has radix 2 and no parameter).
int radix_of(const std::string& algo) {
  return algo.find("knomial") != std::string::npos || algo == "allreduce_nonoverlapping_ompi" ? kRadix : 2;
}

// The harness's name and Open MPI's coll_tuned name of each operation the rules cover.
struct Collective {
  ppsim::Operation op;
  const char* harness;  // coll_fingerprint's COLLECTIVE
  const char* tuned;    // coll_tuned_<tuned>_algorithm
};
const Collective kCollectives[] = {
    {ppsim::Operation::allreduce, "allreduce", "allreduce"}, {ppsim::Operation::broadcast, "bcast", "bcast"},
    {ppsim::Operation::reduce, "reduce", "reduce"},          {ppsim::Operation::allgather, "allgather", "allgather"},
    {ppsim::Operation::alltoall, "alltoall", "alltoall"},    {ppsim::Operation::reduce_scatter, "reduce_scatter", "reduce_scatter"},
    {ppsim::Operation::barrier, "barrier", "barrier"},       {ppsim::Operation::gather, "gather", "gather"},
    {ppsim::Operation::scatter, "scatter", "scatter"},
};
const Collective* collective_of(ppsim::Operation op) {
  for (const auto& c : kCollectives)
    if (c.op == op) return &c;
  return nullptr;
}

// Messages and bytes rank i sent to rank j (empty: of these messages, the ones of 0 bytes; Open MPI's only).
struct Fingerprint {
  std::vector<std::vector<int64_t>> count, bytes, empty;
  bool operator==(const Fingerprint& o) const { return count == o.count && bytes == o.bytes; }
  std::string text() const {
    std::ostringstream t;
    for (size_t i = 0; i < count.size(); ++i) {
      t << "\n  rank " << i << " sends:";
      for (size_t j = 0; j < count.size(); ++j)
        if (count[i][j]) t << " " << count[i][j] << "x/" << bytes[i][j] << "B->" << j;
    }
    return t.str();
  }
};

// Whether Open MPI sent what ppsim's unit sends. ppsim's messages carry at least one word (step_rules.h),
// so a unit that models an algorithm sending empty blocks leaves those 0-byte messages out: for such a
// unit alone (each one's header says why), Open MPI's empty messages are not counted. Everywhere else
// every message counts, empty or not (a barrier's messages are empty in Open MPI).
bool same_sends(const std::string& algo, const Fingerprint& mine, const Fingerprint& ompi) {
  static const std::set<std::string> kSendsEmptyBlocks = {"broadcast_van_de_geijn_ompi", "broadcast_scatter_allgather_ompi",
                                                        "allreduce_nonoverlapping_ompi"};  // its bcast may be 8
  if (!kSendsEmptyBlocks.count(algo) || ompi.empty.size() != ompi.count.size()) return mine == ompi;
  Fingerprint full = ompi;
  for (size_t i = 0; i < full.count.size(); ++i)
    for (size_t j = 0; j < full.count.size(); ++j) full.count[i][j] -= full.empty[i][j];
  return mine == full;
}

// What ppsim's unit sends, from its schedule; empty count when ppsim refuses the configuration.
Fingerprint ppsim_fingerprint(const std::string& algo, int64_t p, int64_t m, std::string* refusal = nullptr) {
  ppsim::RunConfig c = ppsim::testing_support::make_config(algo, ppsim::TopologyKind::full, p, "", m);
  c.params.radix = radix_of(algo);
  const std::string why = ppsim::algorithm_rejects(*c.algorithm, c.topology, c.params, c.combine);
  if (!why.empty()) {
    if (refusal) *refusal = why;
    return {};
  }
  Fingerprint f{std::vector<std::vector<int64_t>>(size_t(p), std::vector<int64_t>(size_t(p), 0)),
                std::vector<std::vector<int64_t>>(size_t(p), std::vector<int64_t>(size_t(p), 0)), {}};
  for (int r = 1; r <= c.algorithm->rounds(c.params); ++r)
    for (int64_t x = 0; x < p; ++x) {
      ppsim::StepOps ops;
      ppsim::algorithm_ops(c.algorithm->id, c.params, x, r, ops);
      for (int i = 0; i < ops.nsend; ++i) {
        f.count[size_t(x)][size_t(ops.send[i].to)] += 1;
        // A barrier's messages carry no data (Open MPI's are empty); ppsim's one-word tokens only time them.
        if (c.algorithm->op != ppsim::Operation::barrier) f.bytes[size_t(x)][size_t(ops.send[i].to)] += kWordBytes * ops.send[i].len;
      }
    }
  return f;
}

std::string shell_output(const std::string& cmd, int* rc = nullptr) {
  std::string out;
  FILE* f = ::popen(cmd.c_str(), "r");
  if (!f) return out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  const int status = ::pclose(f);
  if (rc) *rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

bool have_open_mpi() { return std::system("command -v ompi_info >/dev/null 2>&1") == 0 && fs::exists(PPSIM_MPIEXEC); }

// The algorithm numbers the installed Open MPI has for each coll_tuned collective.
std::map<std::string, std::set<int>> installed_numbers() {
  std::map<std::string, std::set<int>> has;
  std::istringstream in(shell_output("ompi_info --parsable --param coll tuned --level 9 2>/dev/null"));
  // mca:coll:tuned:param:coll_tuned_bcast_algorithm:enumerator:value:9:scatter_allgather_ring
  for (std::string line; std::getline(in, line);) {
    const std::string key = ":enumerator:value:";
    const size_t at = line.find(key), name = line.find("coll_tuned_");
    if (at == std::string::npos || name == std::string::npos) continue;
    const std::string param = line.substr(name + 11, at - name - 11);  // bcast_algorithm
    if (param.size() < 10 || param.substr(param.size() - 10) != "_algorithm") continue;
    has[param.substr(0, param.size() - 10)].insert(std::atoi(line.c_str() + at + key.size()));
  }
  return has;
}

// Runs the harness on p ranks with extra MCA arguments; one fingerprint per configuration, in order.
std::vector<Fingerprint> open_mpi_fingerprints(int64_t p, const std::string& mca, const std::vector<std::string>& configs) {
  ::setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);  // containers run the tests as root
  ::setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  std::string cmd = std::string("'") + PPSIM_MPIEXEC + "' --oversubscribe --bind-to none -np " + std::to_string(p) +
                    " --mca btl self,vader --mca pml_monitoring_enable 1 --mca coll_tuned_use_dynamic_rules 1 " + mca + " '" +
                    PPSIM_COLL_FINGERPRINT + "'";
  for (const auto& c : configs) cmd += " " + c;
  int rc = 0;
  const std::string out = shell_output(cmd + " 2>&1", &rc);
  std::vector<Fingerprint> prints;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    std::istringstream l(line);
    std::string coll, sep;
    int64_t m = 0, ranks = 0;
    if (!(l >> coll >> m >> ranks) || ranks != p) continue;
    Fingerprint f{std::vector<std::vector<int64_t>>(size_t(p), std::vector<int64_t>(size_t(p), 0)),
                  std::vector<std::vector<int64_t>>(size_t(p), std::vector<int64_t>(size_t(p), 0)),
                  std::vector<std::vector<int64_t>>(size_t(p), std::vector<int64_t>(size_t(p), 0))};
    for (auto* table : {&f.count, &f.bytes, &f.empty})
      for (int64_t i = 0; i < p; ++i) {
        if (i > 0 || table != &f.count) l >> sep;  // '|' between ranks, ';' between the tables
        for (int64_t j = 0; j < p; ++j) l >> (*table)[size_t(i)][size_t(j)];
      }
    if (l.fail()) continue;
    prints.push_back(f);
  }
  EXPECT_EQ(rc, 0) << cmd << "\n" << out;
  EXPECT_EQ(prints.size(), configs.size()) << cmd << "\n" << out;
  prints.resize(configs.size());
  return prints;
}

const std::vector<int64_t> kPs = {4, 5, 6, 8};
const std::vector<int64_t> kMs = {1, 13, 64};  // 1: below every fall-back's bound; 13: blocks cut unevenly

// Every ppsim algorithm the Open MPI rules can name, with its number, by collective.
std::map<ppsim::Operation, std::map<int, std::vector<std::string>>> named_by_ompi() {
  std::map<ppsim::Operation, std::map<int, std::vector<std::string>>> named;
  for (const auto& a : ppsim::algorithms()) {
    const int n = ppsim::study::ompi_algorithm_number(a.name);
    if (n != 0) named[a.op][n].push_back(a.name);
  }
  return named;
}

TEST(OpenMpiFingerprint, ForcedAlgorithmsSendWhatTheirPpsimVariantsSend) {
  if (!have_open_mpi()) GTEST_SKIP() << "Open MPI (mpirun and ompi_info) is not installed";
  const auto has = installed_numbers();
  ASSERT_FALSE(has.empty()) << "ompi_info lists no coll_tuned algorithm";
  // Launch k forces the k-th number of every collective that has one; all its configurations run in it.
  // An algorithm that runs other collectives as Open MPI picks them (allreduce 2: a reduce, then a
  // bcast) gets launches of its own after these, with nothing else forced.
  using Todo = std::map<ppsim::Operation, std::vector<std::pair<int, std::vector<std::string>>>>;
  Todo todo;
  std::vector<Todo> alone;
  for (const auto& [op, numbers] : named_by_ompi()) {
    const Collective* c = collective_of(op);
    ASSERT_NE(c, nullptr) << ppsim::operation_name(op);
    for (const auto& [n, names] : numbers) {
      if (!has.count(c->tuned) || !has.at(c->tuned).count(n)) {
        std::printf("[ skipped  ] Open MPI here has no %s algorithm %d (%s)\n", c->tuned, n, names.front().c_str());
        continue;
      }
      if (op == ppsim::Operation::allreduce && n == 2) alone.push_back({{op, {{n, names}}}});
      else todo[op].push_back({n, names});
    }
  }
  size_t launches = 0;
  for (const auto& [op, list] : todo) launches = std::max(launches, list.size());
  int compared = 0, refused = 0;
  for (int64_t p : kPs)
    for (size_t launch = 0; launch < launches + alone.size(); ++launch) {
      const Todo& forced = launch < launches ? todo : alone[launch - launches];
      const size_t k = launch < launches ? launch : 0;
      std::string mca;
      std::vector<std::string> configs;
      std::vector<std::pair<std::string, int64_t>> expect;  // (ppsim algorithm list index key, m)
      std::vector<const std::vector<std::string>*> names_of;
      std::vector<int> number_of;
      for (const auto& [op, list] : forced) {
        if (k >= list.size()) continue;
        const Collective* c = collective_of(op);
        mca += std::string(" --mca coll_tuned_") + c->tuned + "_algorithm " + std::to_string(list[k].first);
        for (int64_t m : op == ppsim::Operation::barrier ? std::vector<int64_t>{1} : kMs) {
          configs.push_back(std::string(c->harness) + ":" + std::to_string(m));
          expect.push_back({c->harness, m});
          names_of.push_back(&list[k].second);
          number_of.push_back(list[k].first);
        }
      }
      mca += " --mca coll_tuned_bcast_algorithm_knomial_radix " + std::to_string(kRadix);
      const auto prints = open_mpi_fingerprints(p, mca, configs);
      for (size_t i = 0; i < configs.size(); ++i)
        for (const auto& name : *names_of[i]) {
          std::string why;
          const Fingerprint mine = ppsim_fingerprint(name, p, expect[i].second, &why);
          if (mine.count.empty()) {  // ppsim does not run it here, so no rules file names it here
            ++refused;
            continue;
          }
          ++compared;
          EXPECT_TRUE(same_sends(name, mine, prints[i])) << name << " (Open MPI " << expect[i].first << " algorithm " << number_of[i] << ") p=" << p
                                         << " m=" << expect[i].second << "\n ppsim:" << mine.text() << "\n Open MPI:" << prints[i].text();
        }
    }
  std::printf("[ compared ] %d configurations (%d that ppsim refuses not run)\n", compared, refused);
  EXPECT_GT(compared, 0);
}

// `best --emit ompi-rules` for allreduce, broadcast and reduce; Open MPI reading the file sends, at the first and
// last m of each rule, what the algorithm the rule names sends.
TEST(OpenMpiFingerprint, RulesFileMakesOpenMpiRunTheNamedAlgorithm) {
  if (!have_open_mpi()) GTEST_SKIP() << "Open MPI (mpirun and ompi_info) is not installed";
  const fs::path dir = fs::temp_directory_path() / ("ppsim_fingerprint_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const auto named = named_by_ompi();
  int checked = 0;
  for (const char* op : {"allreduce", "broadcast", "reduce"}) {
    const fs::path rules = dir / (std::string(op) + ".rules");
    const std::string cmd = std::string("'") + PPSIM_EXE + "' best --op " + op + " --topology full --p 4,6 --m 1..2^12 --ts 100 --tw 1" +
                            " --radix " + std::to_string(kRadix) + " --emit ompi-rules '" + rules.string() + "' >/dev/null 2>&1";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    // The rules: "<bytes> <number> <fan> <seg>  # <names>, m = <first>..<last> words" after "<p>  # communicator size".
    std::ifstream in(rules);
    std::map<int64_t, std::vector<std::pair<std::string, std::vector<int64_t>>>> by_p;
    int64_t p = 0;
    for (std::string line; std::getline(in, line);) {
      if (line.find("# communicator size") != std::string::npos) p = std::stoll(line);
      const size_t at = line.find(", m = ");
      if (at == std::string::npos || p == 0) continue;
      const size_t hash = line.find("# ");
      std::string name = line.substr(hash + 2, at - hash - 2);
      name = name.substr(0, name.find('/'));
      const int64_t first = std::stoll(line.substr(at + 6)), last = std::stoll(line.substr(line.find("..", at) + 2));
      by_p[p].push_back({name, {first, last}});
    }
    ASSERT_FALSE(by_p.empty()) << rules;
    const ppsim::Operation operation = ppsim::find_algorithm(by_p.begin()->second.front().first)->op;
    const Collective* c = collective_of(operation);
    for (const auto& [ranks, list] : by_p) {
      std::vector<std::string> configs;
      std::vector<std::pair<std::string, int64_t>> expect;
      for (const auto& [name, ms] : list)
        for (int64_t m : ms) {
          configs.push_back(std::string(c->harness) + ":" + std::to_string(m));
          expect.push_back({name, m});
        }
      const auto prints = open_mpi_fingerprints(ranks, "--mca coll_tuned_dynamic_rules_filename '" + rules.string() + "'", configs);
      for (size_t i = 0; i < configs.size(); ++i) {
        const auto& [name, m] = expect[i];
        const Fingerprint mine = ppsim_fingerprint(name, ranks, m);
        ASSERT_FALSE(mine.count.empty()) << name << " was named where ppsim does not run it";
        EXPECT_TRUE(same_sends(name, mine, prints[i])) << "the rule names " << name << " at p=" << ranks << " m=" << m << "\n ppsim:" << mine.text()
                                       << "\n Open MPI:" << prints[i].text();
        bool another_differs = false;
        for (const auto& [n, names] : named.at(operation))
          for (const auto& other : names) {
            const Fingerprint f = ppsim_fingerprint(other, ranks, m);
            if (!f.count.empty() && !(f == mine)) another_differs = true;
          }
        EXPECT_TRUE(another_differs) << "every Open MPI algorithm sends the same at p=" << ranks << " m=" << m;
        ++checked;
      }
    }
  }
  std::printf("[ compared ] %d rule ends\n", checked);
  EXPECT_GT(checked, 0);
  fs::remove_all(dir);
}

}  // namespace
