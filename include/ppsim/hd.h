// One macro marks code that must compile for both the host and the device.
// Code under PPSIM_HD uses no STL containers, no virtual calls and no exceptions.
#pragma once

#if defined(__CUDACC__)
#define PPSIM_HD __host__ __device__
// Before a PPSIM_HD template whose executor is host-only in some instantiations (kernel launches)
// and device-only in others (one thread block's loops): nvcc checks each instantiation where it runs.
#define PPSIM_HD_TEMPLATE _Pragma("nv_exec_check_disable")
// An inline function that takes a processor's ops (or a part of them) by reference, inlined on the
// device wherever it is called: a call that is not would need their address, and so the ops in
// local memory instead of registers.
#define PPSIM_DEVICE_INLINE __forceinline__
// A rarely taken path kept out of line on the device, so that the kernels that may take it do not
// carry its code and registers where they do not (inline: one definition in every translation unit).
#define PPSIM_DEVICE_OUTLINED __noinline__ inline
// A rule of a few instructions that the host's passes run for every message or word: inlined there
// too, where GCC otherwise kept it a call (a tenth of a one-word all-reduce's instructions).
#define PPSIM_HOT_INLINE __forceinline__
#else
#define PPSIM_HD
#define PPSIM_HD_TEMPLATE
#define PPSIM_DEVICE_INLINE inline
#define PPSIM_DEVICE_OUTLINED inline
#if defined(__GNUC__)
#define PPSIM_HOT_INLINE inline __attribute__((always_inline))
#else
#define PPSIM_HOT_INLINE inline
#endif
#endif

#include <cstdint>

namespace ppsim {

PPSIM_HD inline int floor_log2(int64_t x) {  // largest d with 2^d <= x (x >= 1)
#if defined(__CUDA_ARCH__)
  return 63 - __clzll(x);
#else
  return 63 - __builtin_clzll(uint64_t(x));
#endif
}
PPSIM_HD inline int ceil_log2(int64_t x) {  // smallest d with 2^d >= x (x >= 1)
  return x <= 1 ? 0 : floor_log2(x - 1) + 1;
}
// The set bits of x. On the host without the POPCNT instruction (the default x86-64 target),
// __builtin_popcountll is a call into libgcc; the same count inline costs a dozen instructions and
// no call, which matters where it runs per message (a hypercube's hops, a failed link's checks).
PPSIM_HD inline int popcount64(int64_t x) {
#if defined(__CUDA_ARCH__)
  return __popcll(static_cast<unsigned long long>(x));
#elif defined(__POPCNT__) || !defined(__GNUC__)
  return __builtin_popcountll(static_cast<unsigned long long>(x));
#else
  uint64_t v = static_cast<uint64_t>(x);
  v = v - ((v >> 1) & 0x5555555555555555ULL);
  v = (v & 0x3333333333333333ULL) + ((v >> 2) & 0x3333333333333333ULL);
  v = (v + (v >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
  return static_cast<int>((v * 0x0101010101010101ULL) >> 56);
#endif
}
PPSIM_HD inline bool is_pow2(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }
// Row-major extents dims[0..ndims) (the last varies fastest): the distance between neighbours
// along dimension k.
PPSIM_HD inline int64_t row_major_stride(const int64_t* dims, int ndims, int k) {
  int64_t s = 1;
  for (int j = ndims - 1; j > k; --j) s *= dims[j];
  return s;
}
// a mod n in [0, n) for n > 0. A ring's schedules mostly ask it of a within one n of [0, n), which
// takes no division (a 64-bit division is a long subroutine on the device and tens of cycles on
// the host); every other a, and n < 0, as a % n.
PPSIM_HD inline int64_t pos_mod(int64_t a, int64_t n) {
  if (n > 0) {  // (no sum or difference below can overflow)
    if (a >= 0 && a < n) return a;
    if (a >= 0 && a - n < n) return a - n;
    if (a < 0 && a + n >= 0) return a + n;
  }
  int64_t r = a % n;
  return r < 0 ? r + n : r;
}

}  // namespace ppsim
