// Tuning files from a crossover map, for the collective selection of real MPI libraries.
//
// Open MPI, coll/tuned "dynamic rules" (classic format, MCA parameter
// coll_tuned_dynamic_rules_filename, with coll_tuned_use_dynamic_rules 1). Read by
// ompi/mca/coll/tuned/coll_tuned_dynamic_file.c: whitespace-separated integers, `#` to the end of a
// line is a comment; number of collectives; per collective its id (the COLLTYPE enum: allgather 0,
// allreduce 2, alltoall 3, barrier 6, bcast 7, gather 9, reduce 11, reduce_scatter 12,
// scatter 15), the number of communicator sizes; per size the size and the number of rules; per rule
// the message size in bytes (the first is 0, then ascending), the algorithm number, topo/fan-in-out and
// segment size. A communicator takes the entry of the largest size <= its own (the first entry when it
// is smaller than all), a call the rule of the largest message size <= its own: the reader of Open MPI's
// releases (ompi_coll_tuned_get_com_rule_ptr). The development branch's classic reader gives entry i the
// sizes [size(i-1), size(i) - 1] instead; ppsim writes for the releases. Algorithm numbers and the message size of each collective: Open
// MPI's docs/tuning-apps/coll-tuned.rst ("Collectives and their Algorithms"), the same numbers as
// coll_tuned_<collective>_decision.c.
//
// MPICH, collective selection JSON (MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE), read by
// src/mpi/coll/src/csel.c: nested objects "collective=NAME" -> "comm_type=intra" ->
// "comm_size<=N" ... "comm_size=any" -> "avg_msg_size<=B" (or "total_msg_size<=B") ... "=any" ->
// {"algorithm=MPIR_<Coll>_intra_<name>": {}}. Keys are tried in order, the first that holds wins;
// a chain of "<=" keys must end in "=any". Every value must be an object and an unknown key aborts
// MPICH, so the file cannot hold a comment: the algorithms left out are printed instead.
// avg_msg_size is bytes per process (allreduce, bcast, reduce, alltoall); allgather, reduce_scatter,
// gather and scatter have only total_msg_size (bytes of all p blocks). Names: csel_container.c.
#include "study/tuning.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "study/sweep.h"

namespace ppsim::study {

namespace {

constexpr int64_t kWordBytes = 8;  // a ppsim word is one 8-byte element (MPI_DOUBLE, MPI_INT64_T)

// The algorithms ppsim shares with the libraries. Open MPI numbers from docs/tuning-apps/coll-tuned.rst
// (allreduce: 1 basic_linear, 2 nonoverlapping, 3 recursive_doubling, 4 ring, 5 segmented_ring,
// 6 rabenseifner; bcast: 2 chain, 3 pipeline, 5 binary_tree, 6 binomial, 7 knomial,
// 8 scatter_allgather, 9 scatter_allgather_ring; allgather: 2 bruck, 3 recursive_doubling, 4 ring;
// alltoall: 1 linear, 2 pairwise, 3 modified_bruck; reduce: 5 binomial, 7 rabenseifner, 8 knomial;
// reduce_scatter: 2 recursive_halving, 3 ring, 4 butterfly; barrier: 4 bruck (dissemination),
// 6 tree; gather, scatter: 2 binomial). MPICH names from src/mpi/coll/src/csel_container.c.
struct SharedAlgorithm {
  const char* ppsim;
  int ompi;           // 0: Open MPI has none
  const char* mpich;  // nullptr: MPICH has none
};
const SharedAlgorithm kShared[] = {
    {"broadcast_binomial", 0, "MPIR_Bcast_intra_binomial"},  // Open MPI's tree takes the next one's numbering
    {"broadcast_binomial_low_first", 6, nullptr},           // v sends to v + 2^k, 2^k > v: Open MPI's bmtree
    {"broadcast_chain", 3, nullptr},              // Open MPI's pipeline: one segmented chain
    {"broadcast_bintree_pipelined", 0, nullptr},  // Open MPI's binary tree numbers v -> v + 2^L, v + 2 2^L, not as a heap
    {"broadcast_bintree_ompi", 5, nullptr},       // that tree
    {"broadcast_knomial", 7, nullptr},            // fan-out = --radix
    {"broadcast_scatter_allgather", 0, "MPIR_Bcast_intra_scatter_recursive_doubling_allgather"},  // p = 2^d only; Open MPI runs the next one
    {"broadcast_scatter_allgather_ompi", 8, nullptr},  // any p, halving fills what incomplete subtrees leave out; linear when m < p
    {"broadcast_van_de_geijn", 0, "MPIR_Bcast_intra_scatter_ring_allgather"},  // Open MPI cuts its blocks as the next one
    {"broadcast_van_de_geijn_ompi", 9, nullptr},  // with Open MPI's linear fall-back when m < p
    {"reduce_binomial", 5, "MPIR_Reduce_intra_binomial"},
    {"reduce_knomial", 8, nullptr},
    // Open MPI's Rabenseifner reduce pairs (2j, 2j+1) swap halves where p is no power of two, as its
    // all-reduce, and runs the linear reduce when m < 2^floor(lg p): neither of these two, but the third.
    {"reduce_rabenseifner", 0, "MPIR_Reduce_intra_reduce_scatter_gather"},
    {"reduce_rs_gather", 0, "MPIR_Reduce_intra_reduce_scatter_gather"},
    {"reduce_rabenseifner_ompi", 7, nullptr},
    {"allgather_bruck", 2, "MPIR_Allgather_intra_brucks"},
    {"allgather_hypercube", 3, "MPIR_Allgather_intra_recursive_doubling"},
    {"allgather_ring", 4, "MPIR_Allgather_intra_ring"},
    {"allreduce_reduce_broadcast", 0, nullptr},  // Open MPI's nonoverlapping (2) runs the reduce and bcast its own selection picks:
    {"allreduce_nonoverlapping_ompi", 2, nullptr},  // those, where ppsim has both (it refuses the other p and m)
    {"allreduce_hypercube", 3, "MPIR_Allreduce_intra_recursive_doubling"},
    {"allreduce_ring", 0, "MPIR_Allreduce_intra_ring"},  // ring reduce-scatter, ring all-gather; Open MPI runs the next one
    {"allreduce_ring_ompi", 4, nullptr},                 // the same ring, recursive doubling when m < p
    {"allreduce_rabenseifner", 0, "MPIR_Allreduce_intra_reduce_scatter_allgather"},  // Open MPI runs the next one
    {"allreduce_rabenseifner_ompi", 6, nullptr},  // Open MPI's variant, with its linear fall-back
    {"allreduce_rs_ag", 0, "MPIR_Allreduce_intra_reduce_scatter_allgather"},  // Open MPI's 6 is allreduce_rabenseifner_ompi
    {"alltoall_linear", 1, nullptr},
    {"alltoall_pairwise", 2, "MPIR_Alltoall_intra_pairwise"},
    {"alltoall_bruck", 3, "MPIR_Alltoall_intra_brucks"},  // Open MPI's modified Bruck: radix 2 only (library_has)
    // Open MPI's recursive halving (2) halves the highest bit first and its butterfly (4) ends with a mirror
    // exchange, both after folding pairs down to 2^floor(lg p); its ring (3) sends to rank + 1: each is a
    // _ompi unit of its own, none of ppsim's textbook ones.
    {"reduce_scatter_hypercube", 0, "MPIR_Reduce_scatter_intra_recursive_halving"},
    {"reduce_scatter_ring", 0, nullptr},
    {"reduce_scatter_ring_ompi", 3, nullptr},
    {"reduce_scatter_recursive_halving_ompi", 2, nullptr},
    {"reduce_scatter_butterfly_ompi", 4, nullptr},
    {"reduce_scatter_halving", 0, "MPIR_Reduce_scatter_intra_recursive_halving"},  // Träff's butterfly, any p
    {"reduce_scatter_pairwise", 0, "MPIR_Reduce_scatter_intra_pairwise"},
    {"barrier_dissemination", 4, "MPIR_Barrier_intra_k_dissemination"},  // MPICH's k defaults to 2
    {"barrier_binomial", 6, nullptr},
    {"gather_binomial", 2, "MPIR_Gather_intra_binomial"},
    {"scatter_binomial", 2, "MPIR_Scatter_intra_binomial"},
};

const SharedAlgorithm* shared(const std::string& name) {
  for (const auto& s : kShared)
    if (name == s.ppsim) return &s;
  return nullptr;
}

// Each library's name of an operation and how it measures a message: bytes per call as the library
// computes them from ppsim's m words (m: the vector; or the block of each processor, p of them).
struct LibraryCollective {
  Operation op;
  int ompi_id;             // COLLTYPE enum; -1: not in Open MPI's coll_tuned
  bool ompi_times_p;       // Open MPI's message size counts all p blocks
  const char* mpich;       // MPICH collective name; nullptr: none
  const char* mpich_size;  // "avg_msg_size" or "total_msg_size"; nullptr: MPICH selects by comm size only
};
const LibraryCollective kCollectives[] = {
    {Operation::allgather, 0, true, "allgather", "total_msg_size"},
    {Operation::allreduce, 2, false, "allreduce", "avg_msg_size"},
    {Operation::alltoall, 3, true, "alltoall", "avg_msg_size"},
    {Operation::barrier, 6, false, "barrier", nullptr},
    {Operation::broadcast, 7, false, "bcast", "avg_msg_size"},
    {Operation::gather, 9, true, "gather", "total_msg_size"},
    {Operation::reduce, 11, false, "reduce", "avg_msg_size"},
    {Operation::reduce_scatter, 12, true, "reduce_scatter", "total_msg_size"},
    {Operation::scatter, 15, true, "scatter", "total_msg_size"},
};

const LibraryCollective& library_collective(Operation op) {
  for (const auto& c : kCollectives)
    if (c.op == op) return c;
  throw UsageError(std::string("--emit: no MPI library tunes ") + operation_name(op) + " by a selection file");
}

// Whether the library has the algorithm as ppsim ran it, with the map's --radix: Open MPI's modified
// Bruck all-to-all (3) has radix 2 and no parameter, so alltoall_bruck at another radix is not it.
bool library_has(const std::string& name, TuningFormat f, int64_t radix) {
  const SharedAlgorithm* s = shared(name);
  if (!s) return false;
  if (f == TuningFormat::mpich_json) return s->mpich != nullptr;
  return s->ompi != 0 && (name != "alltoall_bruck" || radix == 2);
}

int64_t ompi_bytes(const LibraryCollective& c, int64_t p, int64_t m) {
  if (c.op == Operation::barrier) return 0;
  return kWordBytes * m * (c.ompi_times_p ? p : 1);
}
int64_t mpich_bytes(const LibraryCollective& c, int64_t p, int64_t m) {
  return kWordBytes * m * (std::string(c.mpich_size) == "total_msg_size" ? p : 1);
}

// What the library calls an algorithm it has.
std::string library_label(const std::string& name, TuningFormat f) {
  const SharedAlgorithm* a = shared(name);
  return f == TuningFormat::ompi_rules ? std::to_string(a->ompi) : a->mpich;
}

// A run of grid sizes with one winner: from `m` (the first size of the run) to `last_m`.
struct Rule {
  int64_t m, last_m;
  std::string algo;   // the first winner of the run
  std::string names;  // every ppsim winner of the run, for the comment ("a/b" when two are the same to the library)
};

// The rules of one p for a library: consecutive sizes with the same winner merged; sizes where none of
// the library's algorithms ran are skipped (the rule before them goes on).
std::vector<Rule> rules_for(const CrossoverMap& map, const CrossoverRow& row, TuningFormat f) {
  std::vector<Rule> rules;
  for (const auto& r : row.ranking.rows) {
    int w = library_winner(r, f, map.radix);
    if (w < 0) continue;
    const std::string& name = r.entries[size_t(w)].name;
    if (!rules.empty() && library_label(rules.back().algo, f) == library_label(name, f)) {  // the same to the library
      Rule& last = rules.back();
      last.last_m = r.m;
      if (("/" + last.names + "/").find("/" + name + "/") == std::string::npos) last.names += "/" + name;
    } else {
      rules.push_back({r.m, r.m, name, name});
    }
  }
  return rules;
}

std::string ompi_text(const CrossoverMap& map) {
  const LibraryCollective& c = library_collective(map.op);
  if (c.ompi_id < 0) throw UsageError(std::string("--emit ompi-rules: Open MPI's coll_tuned has no ") + operation_name(map.op));
  std::vector<std::pair<int64_t, std::vector<Rule>>> sizes;
  for (const auto& row : map.rows) {
    auto rules = rules_for(map, row, TuningFormat::ompi_rules);
    if (!rules.empty()) sizes.push_back({row.p, rules});
  }
  if (sizes.empty()) throw UsageError("--emit ompi-rules: none of Open MPI's algorithms ran at any p and m");
  std::string t;
  t += "# Open MPI coll/tuned dynamic rules written by ppsim best (classic format)\n";
  t += "# use: mpirun --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename FILE ...\n";
  t += std::string("# ") + operation_name(map.op) + " on " + map.topology + "; each rule names the simulated winner among the\n";
  t += "# algorithms Open MPI has; message sizes in bytes (8-byte words";
  t += c.ompi_times_p ? ", times p as Open MPI counts this collective)\n" : ")\n";
  const auto out = left_out_algorithms(map, TuningFormat::ompi_rules);
  if (!out.empty()) {
    t += "# left out (Open MPI has no such algorithm):";
    for (const auto& n : out) t += " " + n;
    t += "\n";
  }
  t += "1  # number of collectives\n";
  t += std::to_string(c.ompi_id) + "  # collective id: " + operation_name(map.op) + "\n";
  t += std::to_string(sizes.size()) + "  # number of communicator sizes\n";
  for (const auto& [p, rules] : sizes) {
    t += std::to_string(p) + "  # communicator size\n";
    t += std::to_string(rules.size()) + "  # number of message-size rules\n";
    for (size_t i = 0; i < rules.size(); ++i) {
      const int64_t bytes = i == 0 ? 0 : ompi_bytes(c, p, rules[i].m);  // the first rule starts at 0
      const int number = shared(rules[i].algo)->ompi;
      // topo/fan-in-out: the radix of the k-nomial trees, else 0 (Open MPI's default). Segment size: the
      // bytes of one of --segments segments at the first m of the rule for the pipelined broadcasts, else
      // 0 (not segmented).
      const bool knomial = rules[i].algo == "broadcast_knomial" || rules[i].algo == "reduce_knomial";
      const bool pipelined = rules[i].algo == "broadcast_chain" || rules[i].algo == "broadcast_bintree_ompi";
      const int64_t fan = knomial ? map.radix : 0;
      const int64_t segsize = pipelined && map.segments > 1 ? kWordBytes * ((rules[i].m + map.segments - 1) / map.segments) : 0;
      t += std::to_string(bytes) + " " + std::to_string(number) + " " + std::to_string(fan) + " " + std::to_string(segsize) + "  # " +
           rules[i].names + ", m = " + std::to_string(rules[i].m) + ".." + std::to_string(rules[i].last_m) + " words\n";
    }
  }
  return t;
}

std::string mpich_text(const CrossoverMap& map) {
  const LibraryCollective& c = library_collective(map.op);
  if (!c.mpich) throw UsageError(std::string("--emit mpich-json: MPICH's selection has no ") + operation_name(map.op));
  nlohmann::ordered_json by_size = nlohmann::ordered_json::object();
  std::vector<std::pair<int64_t, std::vector<Rule>>> sizes;
  for (const auto& row : map.rows) {
    auto rules = rules_for(map, row, TuningFormat::mpich_json);
    if (!rules.empty()) sizes.push_back({row.p, rules});
  }
  if (sizes.empty()) throw UsageError("--emit mpich-json: none of MPICH's algorithms ran at any p and m");
  auto algorithm = [](const std::string& name) {
    nlohmann::ordered_json a = nlohmann::ordered_json::object();
    a[std::string("algorithm=") + shared(name)->mpich] = nlohmann::ordered_json::object();
    return a;
  };
  for (size_t s = 0; s < sizes.size(); ++s) {
    const auto& [p, rules] = sizes[s];
    nlohmann::ordered_json node = nlohmann::ordered_json::object();
    if (!c.mpich_size) {
      node = algorithm(rules.front().algo);  // barrier: one algorithm a communicator size
    } else {
      for (size_t i = 0; i < rules.size(); ++i) {
        const std::string key = std::string(c.mpich_size) +
                                (i + 1 == rules.size() ? std::string("=any") : "<=" + std::to_string(mpich_bytes(c, p, rules[i].last_m)));
        node[key] = algorithm(rules[i].algo);
      }
    }
    by_size[s + 1 == sizes.size() ? std::string("comm_size=any") : "comm_size<=" + std::to_string(p)] = node;
  }
  nlohmann::ordered_json doc = nlohmann::ordered_json::object();
  doc[std::string("collective=") + c.mpich]["comm_type=intra"] = by_size;
  return doc.dump(2) + "\n";
}

}  // namespace

TuningFormat parse_tuning_format(const std::string& text) {
  if (text == "ompi-rules") return TuningFormat::ompi_rules;
  if (text == "mpich-json") return TuningFormat::mpich_json;
  throw UsageError("--emit format '" + text + "' must be ompi-rules or mpich-json");
}

int ompi_algorithm_number(const std::string& ppsim_name) {
  const SharedAlgorithm* s = shared(ppsim_name);
  return s ? s->ompi : 0;
}

const char* mpich_algorithm_name(const std::string& ppsim_name) {
  const SharedAlgorithm* s = shared(ppsim_name);
  return s ? s->mpich : nullptr;
}

int library_winner(const BestRow& row, TuningFormat f, int64_t radix) {
  int best = -1;
  for (size_t i = 0; i < row.entries.size(); ++i)
    if (library_has(row.entries[i].name, f, radix) && (best < 0 || row.entries[i].time < row.entries[size_t(best)].time)) best = int(i);
  return best;
}

std::vector<std::string> left_out_algorithms(const CrossoverMap& map, TuningFormat f) {
  std::vector<std::string> out;
  for (const auto& row : map.rows)
    for (const auto& r : row.ranking.rows)
      for (const auto& e : r.entries)
        if (!library_has(e.name, f, map.radix) && std::find(out.begin(), out.end(), e.name) == out.end()) out.push_back(e.name);
  return out;
}

std::string tuning_file_text(const CrossoverMap& map, TuningFormat f) {
  return f == TuningFormat::ompi_rules ? ompi_text(map) : mpich_text(map);
}

}  // namespace ppsim::study
