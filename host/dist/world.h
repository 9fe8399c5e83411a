// The ranks this process runs among (docs/DESIGN.md §8, "Past one process"). ppsim joins MPI only
// when a launcher started it (mpirun sets OMPI_COMM_WORLD_SIZE, PMI_SIZE or PMIX_RANK): started
// on its own it is one process, as it always was, and MPI is never initialized.
#pragma once
#include <string>

#include "ppsim/partition.h"

namespace ppsim::dist {

// Joins MPI when a launcher started this process (a build without MPI refuses a launch of more
// than one rank: throws ConfigError). Call once, first thing in main.
void start(int* argc, char*** argv);
// Leaves MPI (when start joined it).
void finish();
// The ranks, or null when this is one process (started alone, or by a launcher with one rank).
Collectives* world();
inline int rank() { return world() ? world()->rank() : 0; }
inline int size() { return world() ? world()->size() : 1; }
// This rank's index among the ranks on its node (Open MPI's OMPI_COMM_WORLD_LOCAL_RANK), 0 alone.
int local_rank();
// Ranks on this node (OMPI_COMM_WORLD_LOCAL_SIZE), 1 alone.
int local_size();
// Whether Open MPI can take device (CUDA) memory in its calls (MPIX_Query_cuda_support).
bool cuda_aware();
// Ends every rank at once with `code`, after this one printed its line: for failures the ranks
// could not agree on (each agreed failure ends every rank on its own, without this).
[[noreturn]] void abort_all(int code);

// A point-to-point channel for the work queue of sweeps (rank 0 hands out work, the others ask):
// tagged messages of words between two ranks.
void send_words(int to, int tag, const std::vector<uint64_t>& words);
// Receives from any rank (from < 0) or from `from`; returns the sender, sets tag.
int recv_words(int from, int& tag, std::vector<uint64_t>& words);
// Whether a message of words from `from` (any rank: from < 0) with `tag` waits, without taking it
// (MPI_Iprobe): the dispatcher of a sweep polls with it, its own points running on other threads.
bool probe_words(int from, int tag);

}  // namespace ppsim::dist
