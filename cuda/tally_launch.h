// The launches of a pull pass's tally kernels and of a run in one cooperative launch, for one body
// (ops source): a template that backend.cu instantiates for the listed units' own and dispatched
// bodies, and plain_kernels.cu for the plain runs' (rules::PlainUnit), so that the two sets of
// kernels compile in two files, side by side (extern declarations below keep backend.cu from
// compiling the plain ones too).
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <mutex>
#include <unordered_map>

#include "cuda_check.h"
#include "kernels.h"

namespace ppsim {
namespace kernels {

// Blocks for `items` at `per_block` each, at least 1 and at most what a grid-stride loop needs.
inline unsigned grid_for(int64_t items, int64_t per_block) {
  int64_t blocks = (items + per_block - 1) / per_block;
  if (blocks < 1) blocks = 1;
  if (blocks > 65535LL * 64) blocks = 65535LL * 64;  // grid-stride loops cover the rest
  return unsigned(blocks);
}

// The grid of a tally kernel: no more blocks than the card holds at once, so that each block
// strides over many processors and commits its tally once (commit_block). Asked once per kernel
// and kept.
template <class... Args>
unsigned resident_grid(void (*kernel)(Args...), int64_t items, int64_t per_block) {
  static std::mutex mu;
  static std::unordered_map<void (*)(), unsigned> held;
  const unsigned want = grid_for(items, per_block);
  std::lock_guard<std::mutex> lock(mu);
  auto it = held.find(reinterpret_cast<void (*)()>(kernel));
  if (it == held.end()) {
    int dev = 0, sms = 0, blocks = 0;
    PPSIM_CUDA_CHECK(cudaGetDevice(&dev));
    PPSIM_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    PPSIM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, kBlock, 0));
    it = held.emplace(reinterpret_cast<void (*)()>(kernel), unsigned(std::max(1, blocks)) * unsigned(std::max(1, sms))).first;
  }
  return std::min(want, it->second);
}

// A pull pass over n processors, each committing its tally into out.
template <class Body>
void launch_tally(int64_t n, const Body& body, rounds::GroupWidth width, unsigned long long* out, cudaStream_t stream) {
  switch (width) {
    case rounds::GroupWidth::thread:
      single_lane_tally_kernel<Body, 2><<<resident_grid(single_lane_tally_kernel<Body, 2>, n, kBlock), kBlock, 0, stream>>>(n, body, out);
      PPSIM_CUDA_CHECK_LAUNCH("single_lane_tally_kernel");
      break;
    case rounds::GroupWidth::warp:
      group_tally_kernel<<<resident_grid(group_tally_kernel<Body>, n, kBlock / kGroup), kBlock, 0, stream>>>(n, body, out);
      PPSIM_CUDA_CHECK_LAUNCH("group_tally_kernel");
      break;
    case rounds::GroupWidth::block:
      block_tally_kernel<<<grid_for(n, 1), kBlock, 0, stream>>>(n, body, out);
      PPSIM_CUDA_CHECK_LAUNCH("block_tally_kernel");
      break;
  }
}

// Every step of a run in one cooperative launch (step_grid_run): as many blocks as the run's
// processors fill, at most as many as the device holds at once (a cooperative launch may take no
// more; __launch_bounds__ lets every SM hold one).
template <class Src>
void launch_grid_steps(const rounds::StepPlan& pl, cudaStream_t stream) {
  static const int most = [] {
    int sms = 0, per_sm = 0;
    PPSIM_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    PPSIM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, step_grid_run<Src>, kBlock, 0));
    return std::max(1, sms * per_sm);
  }();
  const unsigned blocks = unsigned(std::min<int64_t>(grid_for(pl.p, kBlock), most));
  void* args[] = {const_cast<rounds::StepPlan*>(&pl)};
  PPSIM_CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(&step_grid_run<Src>), dim3(blocks), dim3(kBlock), args, 0, stream));
}

// The plain runs' launches, compiled in plain_kernels.cu alone.
#define PPSIM_PLAIN_LAUNCHES(unit, ext)                                                                                                   \
  ext template void launch_tally<rounds::PullBodyOf<rules::PlainUnit<unit>>>(int64_t, const rounds::PullBodyOf<rules::PlainUnit<unit>>&, \
                                                                             rounds::GroupWidth, unsigned long long*, cudaStream_t);     \
  ext template void launch_grid_steps<rules::PlainUnit<unit>>(const rounds::StepPlan&, cudaStream_t);
#define PPSIM_PLAIN_LAUNCHES_DECLARED(unit) PPSIM_PLAIN_LAUNCHES(unit, extern)
PPSIM_PULL_UNITS(PPSIM_PLAIN_LAUNCHES_DECLARED)
#undef PPSIM_PLAIN_LAUNCHES_DECLARED

}  // namespace kernels
}  // namespace ppsim
