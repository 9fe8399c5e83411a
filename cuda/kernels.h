// The kernels of the device executor (backend.cu, which alone includes this file: the
// non-template kernels are defined here). Each runs bodies of round_bodies.h, pull_bodies.h or
// verify_bodies.h over the processors: a thread, a warp or a block a processor, with or without a
// tally to add up; or a whole run as one team of block_exec.h, in one thread block or one
// cooperative grid.
#pragma once
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "block_exec.h"
#include "steps.h"

namespace ppsim {
namespace kernels {

constexpr int kGroup = 32;   // threads per simulated processor (one warp)
constexpr int kBlock = 256;  // threads per CUDA block

// Every kernel takes its body as a __grid_constant__ parameter: the bodies hold the run's context
// (about 700 bytes) by value and call into it by reference, and a plain parameter whose address is
// taken is first copied into each thread's local memory (the PTX of each_kernel<MatchBody> copied
// 712 bytes per thread, 89 loads and stores, before its first instruction of work).
template <class Body>
__global__ void each_kernel(int64_t n, const __grid_constant__ Body body) {
  for (int64_t x = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; x < n; x += int64_t(gridDim.x) * blockDim.x) body(x);
}

// One warp per processor; every lane of a warp has the same processor, so the bodies' lane
// barriers are reached by all 32 lanes. Held to 64 registers (4 blocks an SM): PostBody took 162
// and so ran one block of 8 warps an SM; at 4 it spills about 150 bytes and takes half the time
// (H200, allreduce 2^20 at m = 256, ncu: 7.8 ms -> 3.7 ms a step). The one-lane kernel gained
// nothing from it (m = 1) and lost 8 % at 2^26, so it has no bound.
template <class Body>
__global__ void __launch_bounds__(kBlock, 4) group_kernel(int64_t n, const __grid_constant__ Body body) {
  const int lane = int(threadIdx.x % kGroup);
  const int64_t groups = int64_t(gridDim.x) * (blockDim.x / kGroup);
  for (int64_t i = (int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / kGroup; i < n; i += groups) body(i, lane, kGroup);
}

// One block per processor: for rounds of long messages.
template <class Body>
__global__ void block_kernel(int64_t n, const __grid_constant__ Body body) {
  for (int64_t i = blockIdx.x; i < n; i += gridDim.x) body(i, int(threadIdx.x), int(blockDim.x));
}

// One thread per processor (groups of one lane): for rounds of short messages.
template <class Body>
__global__ void single_lane_kernel(int64_t n, const __grid_constant__ Body body) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) body(i, 0, 1);
}

// The same three for bodies that return a tally (rounds::PullTally): each thread adds up its
// processors' tallies in registers, the warp combines them once every lane has left its loop, and
// one lane commits the sum: an atomic per warp and word, not one per message.
// The counts of receives, sends and the run's goings-again are at most a few dozen a processor and
// a thread holds at most a few thousand processors of a grid-stride loop, so a warp's sum fits 32
// bits: one redux instruction each (sm_80 on), where the shuffles took 10 and the additions 10
// (nine 64-bit words: some 250 of the 1,290 instructions a warp ran in a step of all-reduce at
// 2^20). Words, hops, the load and the time stay 64-bit; a word no lane has (the goings-again, the
// messages off one hop) costs one vote.
__device__ inline unsigned long long warp_sum(unsigned long long v) {
  for (int d = 16; d > 0; d /= 2) v += __shfl_down_sync(0xffffffffu, v, d);
  return v;
}
__device__ inline unsigned long long warp_max(unsigned long long v) {
  for (int d = 16; d > 0; d /= 2) {
    const unsigned long long o = __shfl_down_sync(0xffffffffu, v, d);
    v = o > v ? o : v;
  }
  return v;
}
__device__ inline unsigned long long warp_count(unsigned long long v) {
#if __CUDA_ARCH__ >= 800
  return __reduce_add_sync(0xffffffffu, static_cast<unsigned>(v));
#else
  return warp_sum(v);
#endif
}
__device__ inline rounds::PullTally warp_tally(rounds::PullTally t) {
  t.matched = warp_count(t.matched);
  t.sends = warp_count(t.sends);
  t.words = warp_sum(t.words);
  t.hops = warp_sum(t.hops);
  t.max_load = warp_max(t.max_load);
  t.time_bits = warp_max(t.time_bits);
  if (__any_sync(0xffffffffu, t.defers | t.regenerates | t.multi)) {
    t.defers = warp_count(t.defers);
    t.regenerates = warp_count(t.regenerates);
    t.multi = warp_count(t.multi);
  }
  return t;
}
// How many registers the pull kernels take (bench/RESULTS.md, measured on an H200 at 1, 2 and 4
// blocks an SM): up to 128, two blocks of 256 an SM, where 64 (four blocks) spilled 100 bytes a
// lane of the warp kernel and took 20 % longer. Inlined without calls the single-lane bodies asked
// up to 160, one block an SM (all-reduce 2^26 then lost what a sixth fewer instructions gained);
// with the thread's counts in 32 bits they fit 128 with no more spill than unbounded, and two
// blocks measured faster (an H100); a plain run's kernels ask 66-101 (rules::PlainUnit).
// A thread's sum over the processors of its grid-stride loop, the counts in 32 bits (warp_count says
// why they fit): five registers fewer held across the loop than a PullTally.
struct ThreadTally {
  unsigned matched = 0, sends = 0, defers = 0, regenerates = 0, multi = 0;
  unsigned long long max_load = 0, time_bits = 0, words = 0, hops = 0;
  __device__ void add(const rounds::PullTally& o) {
    matched += unsigned(o.matched);
    sends += unsigned(o.sends);
    defers += unsigned(o.defers);
    regenerates += unsigned(o.regenerates);
    multi += unsigned(o.multi);
    max_load = max_load > o.max_load ? max_load : o.max_load;
    time_bits = time_bits > o.time_bits ? time_bits : o.time_bits;
    words += o.words;
    hops += o.hops;
  }
  __device__ rounds::PullTally whole() const {
    rounds::PullTally t;
    t.matched = matched, t.sends = sends, t.defers = defers, t.regenerates = regenerates, t.multi = multi;
    t.max_load = max_load, t.time_bits = time_bits, t.words = words, t.hops = hops;
    return t;
  }
};
// A block's warps' sums, added up in shared memory and committed by one thread: an atomic per
// block and word. Committed per warp, the atomics on a round's nine words were what a step of
// all-reduce at 2^20 waited on: 32,768 warps, six each, on one line of L2 (H100, Nsight Compute:
// 55 % of the one-lane kernel's warp samples were waiting to drain at exit at m = 1, and a quarter
// at m = 256, where a warp a processor made a million commits a step). The tally kernels' grids
// are also held to the blocks the card holds at once (backend.cu), so a block commits once for
// many processors. Every thread of the block must call it; `leader` says which hold a warp's sum.
__device__ inline void commit_block(unsigned long long* out, const rounds::PullTally& warp_sum, bool leader) {
  static_assert(rounds::kTallyWords == 9, "a tally's words, as commit_tally writes them");
  constexpr int kWarps = kBlock / 32;
  __shared__ unsigned long long part[rounds::kTallyWords][kWarps];
  const int w = int(threadIdx.x / 32);
  if (leader) {
    part[0][w] = warp_sum.matched, part[1][w] = warp_sum.max_load, part[2][w] = warp_sum.time_bits;
    part[3][w] = warp_sum.sends, part[4][w] = warp_sum.words, part[5][w] = warp_sum.hops;
    part[6][w] = warp_sum.defers, part[7][w] = warp_sum.regenerates, part[8][w] = warp_sum.multi;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    rounds::PullTally t;
    for (int k = 0; k < kWarps && k < int(blockDim.x / 32); ++k) {
      rounds::PullTally o;
      o.matched = part[0][k], o.max_load = part[1][k], o.time_bits = part[2][k];
      o.sends = part[3][k], o.words = part[4][k], o.hops = part[5][k];
      o.defers = part[6][k], o.regenerates = part[7][k], o.multi = part[8][k];
      t.add(o);
    }
    rounds::commit_tally(out, t);
  }
}
template <class Body, int MinBlocks = 2>
__global__ void __launch_bounds__(kBlock, MinBlocks) single_lane_tally_kernel(int64_t n, const __grid_constant__ Body body, unsigned long long* out) {
  ThreadTally t;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) t.add(rounds::pull_of(body, i, 0, 1));
  commit_block(out, warp_tally(t.whole()), threadIdx.x % 32 == 0);
}
template <class Body>
__global__ void __launch_bounds__(kBlock, 2) group_tally_kernel(int64_t n, const __grid_constant__ Body body, unsigned long long* out) {
  const int lane = int(threadIdx.x % kGroup);
  const int64_t groups = int64_t(gridDim.x) * (blockDim.x / kGroup);
  ThreadTally t;
  for (int64_t i = (int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / kGroup; i < n; i += groups) t.add(rounds::pull_of(body, i, lane, kGroup));
  commit_block(out, t.whole(), lane == 0);  // (lane 0 holds the warp's processors' tallies)
}
template <class Body>
__global__ void block_tally_kernel(int64_t n, const __grid_constant__ Body body, unsigned long long* out) {
  ThreadTally t;
  for (int64_t i = blockIdx.x; i < n; i += gridDim.x) t.add(rounds::pull_of(body, i, int(threadIdx.x), int(blockDim.x)));
  if (threadIdx.x == 0) rounds::commit_tally(out, t.whole());
}

// A whole small run in one thread block (block_exec.h): the launches of a step, not its work,
// dominate runs of thousands of steps over a few thousand processors.
struct BlockTeam {  // used in kernels only; the host pass compiles empty bodies
#if defined(__CUDA_ARCH__)
  PPSIM_HD int rank() const { return int(threadIdx.x); }
  PPSIM_HD int size() const { return int(blockDim.x); }
  PPSIM_HD void sync() const { __syncthreads(); }
#else
  PPSIM_HD int rank() const { return 0; }
  PPSIM_HD int size() const { return 1; }
  PPSIM_HD void sync() const {}
#endif
  PPSIM_HD void commit(unsigned long long* out, const rounds::PullTally& t) const { rounds::commit_tally(out, t); }
};
using BlockExec = rounds::TeamExec<BlockTeam>;

// A whole run on the pull step in one cooperative launch: every thread of the grid is one lane of
// the team, and a step's phases meet at grid-wide barriers instead of kernel boundaries (the
// launches, not the work, cost a run of thousands of steps over a few thousand processors). A
// warp's tallies are added up in registers and committed by one lane, as the tally kernels do.
struct GridTeam {  // used in kernels only; the host pass compiles empty bodies
#if defined(__CUDA_ARCH__)
  PPSIM_HD int rank() const { return int(blockIdx.x * blockDim.x + threadIdx.x); }
  PPSIM_HD int size() const { return int(gridDim.x * blockDim.x); }
  PPSIM_HD void sync() const { cooperative_groups::this_grid().sync(); }
  PPSIM_HD void commit(unsigned long long* out, const rounds::PullTally& t) const {
    const rounds::PullTally sum = warp_tally(t);
    if (threadIdx.x % 32 == 0) rounds::commit_tally(out, sum);
  }
#else
  PPSIM_HD int rank() const { return 0; }
  PPSIM_HD int size() const { return 1; }
  PPSIM_HD void sync() const {}
  PPSIM_HD void commit(unsigned long long*, const rounds::PullTally&) const {}
#endif
};
using GridExec = rounds::TeamExec<GridTeam>;

// Every step of a run on the pull step whose rounds are all one lane a processor (rounds.h
// one_lane_rounds), launched cooperatively, one kernel per ops source (rules/pull_units.h): a
// listed unit's kernel holds that unit's bodies alone, inlined; the run's end (settling the
// generations, the local work) follows in launches of its own. The pull step scans and reduces
// nothing, so the team needs no shared cells.
// The bodies are made once, not once a step as rounds::pull_round_of makes them, and they refer
// to the run's context in the kernel's parameter: a thread's copy of it went to local memory
// (1.4 KB stored a processor-step in the first measurement); each step sets only their round and
// step.
template <class Src>
__global__ void __launch_bounds__(kBlock) step_grid_run(const __grid_constant__ rounds::StepPlan pl) {
  GridExec exec(GridTeam{}, nullptr);
  const bool routed = !direct_links(pl.ctx.machine.topo);
  rounds::CountLinksBodyOf<Src, const rounds::Ctx&> count{pl.ctx, 0, 0, pl.link_load};  // (never on a plain run: its rounds all guess)
  rounds::PullBodyOf<Src, const rounds::Ctx&> pull{pl.ctx, 0, 0, pl.check_exchange && pl.lambda == 1, pl.pulled, pl.link_load, nullptr};
  for (int64_t t = 1; t <= pl.total_steps; ++t) {
    const int r = pl.round_sent_at(t);
    if (r <= 0) continue;
    pull.guess = pl.guess_of(r);
    if constexpr (!Src::plain) {
      if (routed && pull.guess == rules::kCountLoads) {
        count.round = r;
        count.step = t;
        exec.each(pl.p, count);
      }
    }
    pull.round = r;
    pull.step = t;
    pull.lost = pl.lost_of(r);
    exec.groups_tally(pl.p, pull, pl.width(r), pl.pulled.round_out + rounds::kTallyWords * (r - 1));
  }
}

}  // namespace kernels
}  // namespace ppsim
