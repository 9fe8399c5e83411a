// Relaxed atomics for code that runs on both sides: device atomics on the GPU, the compiler's
// atomic builtins on the host (whose executors run processors on several threads).
#pragma once
#include "ppsim/hd.h"

namespace ppsim {

PPSIM_HD inline unsigned long long atomic_load(const unsigned long long* at) {
#if defined(__CUDA_ARCH__)
  return *at;
#else
  return __atomic_load_n(at, __ATOMIC_RELAXED);
#endif
}
PPSIM_HD inline void atomic_add(unsigned long long* at, unsigned long long v) {
#if defined(__CUDA_ARCH__)
  atomicAdd(at, v);
#else
  __atomic_fetch_add(at, v, __ATOMIC_RELAXED);
#endif
}
// Returns the value found: `expected` when the exchange happened.
PPSIM_HD inline unsigned long long atomic_cas(unsigned long long* at, unsigned long long expected, unsigned long long next) {
#if defined(__CUDA_ARCH__)
  return atomicCAS(at, expected, next);
#else
  __atomic_compare_exchange_n(at, &expected, next, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  return expected;
#endif
}
PPSIM_HD inline void atomic_min(unsigned long long* at, unsigned long long v) {
#if defined(__CUDA_ARCH__)
  atomicMin(at, v);
#else
  unsigned long long old = __atomic_load_n(at, __ATOMIC_RELAXED);
  while (v < old && !__atomic_compare_exchange_n(at, &old, v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
#endif
}

PPSIM_HD inline void atomic_max(unsigned long long* at, unsigned long long v) {
#if defined(__CUDA_ARCH__)
  atomicMax(at, v);
#else
  unsigned long long old = __atomic_load_n(at, __ATOMIC_RELAXED);
  while (v > old && !__atomic_compare_exchange_n(at, &old, v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
#endif
}

}  // namespace ppsim
