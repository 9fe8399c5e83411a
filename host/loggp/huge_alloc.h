// An allocator for the LogGP timing's large arrays: blocks of 2 MiB and more are mapped on their
// own and offered to the kernel's transparent huge pages (madvise), so that first touching them
// costs a page fault per 2 MiB instead of per 4 KiB (on a virtual machine, where faults are dear,
// the faults of the p = 2^20 timings took a fifth of their time).
#pragma once
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <new>
#include <utility>
#include <vector>

namespace ppsim {

template <class T>
struct HugeAlloc {
  using value_type = T;
  HugeAlloc() = default;
  template <class U>
  HugeAlloc(const HugeAlloc<U>&) {}
  static constexpr size_t kHuge = size_t(2) << 20;
  T* allocate(size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes < kHuge) return static_cast<T*>(::operator new(bytes));
    void* m = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) throw std::bad_alloc();
    ::madvise(m, bytes, MADV_HUGEPAGE);
    return static_cast<T*>(m);
  }
  void deallocate(T* ptr, size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes < kHuge) ::operator delete(ptr);
    else ::munmap(ptr, bytes);
  }
  // An element made without arguments is default-initialized, so resize() leaves plain data
  // unwritten for the caller to fill (the lockstep timing gathers a round's messages into it on
  // several threads); one made from arguments is made from them.
  template <class U>
  void construct(U* p) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... A>
  void construct(U* p, A&&... a) {
    ::new (static_cast<void*>(p)) U(std::forward<A>(a)...);
  }
  template <class U>
  bool operator==(const HugeAlloc<U>&) const {
    return true;
  }
};

template <class T>
using HugeVector = std::vector<T, HugeAlloc<T>>;

// Gives the pages wholly inside elements [from, to) of v back to the system where HugeAlloc mapped
// its storage (its capacity 2 MiB or more): what they held is gone (read again, they are zeros).
// For an array copied elsewhere piece by piece, so that the two are not both held whole.
template <class T>
void release_copied(HugeVector<T>& v, size_t from, size_t to) {
  if (v.capacity() * sizeof(T) < HugeAlloc<T>::kHuge) return;  // (on the heap: kept)
  static const uintptr_t page = uintptr_t(::sysconf(_SC_PAGESIZE));
  const uintptr_t a = (reinterpret_cast<uintptr_t>(v.data() + from) + page - 1) / page * page,
                  b = reinterpret_cast<uintptr_t>(v.data() + to) / page * page;
  if (b > a) ::madvise(reinterpret_cast<void*>(a), b - a, MADV_DONTNEED);
}

}  // namespace ppsim
