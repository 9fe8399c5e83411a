// The device executor's memory (backend.cu): arrays taken in stream order from the device's
// default pool, which keeps what runs give back for the runs after them in the process.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "cuda_check.h"

namespace ppsim {

// The stream a thread's device arrays are ordered on: the DeviceExec of the run on that thread
// (the legacy default stream outside any run).
inline thread_local cudaStream_t array_stream = nullptr;

// Device memory is taken and given back in stream order (cudaMallocAsync, cudaFreeAsync) from
// the device's default pool, which keeps what runs give back instead of returning it to the
// driver: a run after the first in a process takes its arrays from what the earlier ones left, and
// no cudaFree waits for the whole device (which stalled the other points of a sweep). The pool
// orders reuse across streams itself.
inline void keep_device_memory() {
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) {
    cudaGetLastError();
    return;
  }
  static std::mutex m;
  static std::vector<int> kept;
  const std::lock_guard<std::mutex> lock(m);
  if (std::find(kept.begin(), kept.end(), device) != kept.end()) return;
  kept.push_back(device);
  cudaMemPool_t pool;
  uint64_t keep = UINT64_MAX;
  if (cudaDeviceGetDefaultMemPool(&pool, device) != cudaSuccess || cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep) != cudaSuccess)
    cudaGetLastError();  // (the driver's own policy then: still correct, only slower)
}

// Bytes the current device's pool holds free for the next allocation (taken from the driver by
// earlier runs and given back to the pool).
inline uint64_t pool_spare_bytes() {
  int device = 0;
  cudaMemPool_t pool;
  uint64_t reserved = 0, used = 0;
  if (cudaGetDevice(&device) != cudaSuccess || cudaDeviceGetDefaultMemPool(&pool, device) != cudaSuccess ||
      cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved) != cudaSuccess ||
      cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return reserved > used ? reserved - used : 0;
}

// A device array that only grows (to exactly what is asked: the memory check counts exact sizes),
// ordered on the stream of the run that took it.
template <class T>
class DeviceArray {
 public:
  DeviceArray() = default;
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  DeviceArray(DeviceArray&& o) noexcept : ptr_(o.ptr_), cap_(o.cap_), stream_(o.stream_) {
    o.ptr_ = nullptr;
    o.cap_ = 0;
  }
  ~DeviceArray() { release(); }
  void ensure(size_t n) {
    if (n <= cap_) return;
    release();
    stream_ = array_stream;
    const uint64_t bytes = uint64_t(n) * sizeof(T);  // exact: a run's sizes are known before it allocates
    cuda_check_malloc(cudaMallocAsync(reinterpret_cast<void**>(&ptr_), bytes, stream_), bytes, __FILE__, __LINE__);
    cap_ = n;
  }
  // Gives the memory back to the pool, after the work queued on its stream so far.
  void release() {
    if (ptr_) cudaFreeAsync(ptr_, stream_);
    ptr_ = nullptr;
    cap_ = 0;
  }
  T* get() const { return ptr_; }

 private:
  T* ptr_ = nullptr;
  size_t cap_ = 0;
  cudaStream_t stream_ = nullptr;
};

}  // namespace ppsim
