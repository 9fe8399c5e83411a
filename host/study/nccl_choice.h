// --algo nccl on a run: NCCL's tuner (ppsim/nccl_tuner.h) picks the algorithm, protocol and
// channels for the run's size on its preset, and ppsim runs the unit of that algorithm with NCCL's
// loops for that size. Also NCCL's loop count, which nccl-tests' sweep gives every size.
#pragma once
#include <string>

#include "ppsim/nccl_tuner.h"
#include "study/run_options.h"

namespace ppsim::study {

// NCCL's collective for a ppsim operation; false where NCCL has none.
bool nccl_func_of(Operation op, NcclFunc& f);

// The bytes NCCL's enqueue counts for a run of m words of `word_bytes` on p ranks (nBytes: the
// whole gathered or scattered vector for all-gather and reduce-scatter, as nccl-tests' size).
int64_t nccl_bytes(NcclFunc f, int64_t m, int64_t word_bytes, int64_t p);

// NCCL's loops for nBytes (src/enqueue.cc, computeCollChunkInfo, 2.20.3) on C channels of p ranks
// on `nodes` nodes: each loop moves a chunk per channel (per channel and rank for the all-reduce
// ring, per channel and head for NVLS). The chunk: a Simple buffer's step of 512 KiB (4 MiB, 8
// steps), 4 steps for the all-reduce, all-gather and reduce-scatter rings; LL's 512 KiB buffer
// carries half its lines as data (32 KiB a step); LL128's 4,915,200-byte buffer 15/16 of them;
// NVLS at most 128 KiB and NVLS-tree 64 KiB from 4 nodes, both smaller for small sizes; the tree's
// LL128 smaller where a size has few chunks a channel.
int64_t nccl_loops(NcclFunc f, NcclAlgo a, Protocol protocol, int64_t channels, int64_t p, int64_t nodes, int64_t bytes);

// The registered unit that runs NCCL's algorithm a for f, or null where ppsim has none.
const char* nccl_unit(NcclAlgo a, NcclFunc f);

// o with --algo nccl resolved: the unit, --protocol, --channels (and ports) and --segments of
// NCCL's choice for the size of o on its preset (--segments kept where given above 1), and
// `picked` the report's line. Throws UsageError: no preset, a protocol given too, a model other
// than linear, or a choice ppsim has no unit for.
RunOptions with_nccl_choice(const RunOptions& o, Operation op, std::string& picked);

}  // namespace ppsim::study
