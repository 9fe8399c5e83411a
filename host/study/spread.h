// Work spread over threads and, under mpirun, over the ranks (docs/DESIGN.md §8, "Past one
// process"): the points of `ppsim sweep`, the runs of `ppsim best`. Each item runs whole in one
// process, as it would alone; rank 0 hands out the items one at a time as workers free up (they
// differ a lot in cost), runs some itself, and is the only rank that sees the results.
#pragma once
#include <cstddef>
#include <functional>
#include <string>

namespace ppsim::study {

// Runs work(i) for every i in [0, n), `jobs` at a time on this process's threads and, under
// mpirun, on every rank's (each rank's own `jobs`). done(i, result) gets each result on rank 0
// (never on another rank), one call at a time, in the order they finish. The first failure (work
// or done throwing, a refusal being a result and not a failure) stops the handing out; once every
// worker has stopped it is thrown on every rank alike, as "<stopped>: <failure>" on one line: an
// AgreedError under mpirun, else a UsageError. Under mpirun every rank must call it with the same n.
// work runs on threads of its own (on the caller's thread alone when jobs is 1 and there is one
// process) and must not call MPI: what it runs is a one-process run.
void spread_work(size_t n, int jobs, const std::function<std::string(size_t)>& work,
                 const std::function<void(size_t, const std::string&)>& done, const std::string& stopped);

// Runs body on every rank and agrees on a failure (partition.h, agreed_phase): every rank throws
// the same AgreedError, which main prints once. Alone it just runs body.
void on_every_rank(const std::function<void()>& body);

// Whether this process writes the output: rank 0, or the one process.
bool lead_rank();
// Ranks in all (1 alone).
int rank_count();
// Ranks on this process's node (1 alone).
int node_ranks();
// Rank 0's exit code, on every rank (a collective under mpirun).
int lead_code(int code);
// Cores for this rank's threads: the node's cores shared among the ranks on it (all of them alone).
int rank_cores();

}  // namespace ppsim::study
