// A processor's few pending events or queued receives, for the window timings (loggp_windows.cpp,
// goal/goal_windows.h): the first N where the processor's state lies (a window reads thousands of
// processors, each through a pointer to its own heap block before: a cache miss apiece, and most
// of the timing's wall), any more in one heap array that the state points to directly (one miss
// where there are more, which prefetch_heap() can ask for ahead). Elements stay in order.
#pragma once
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace ppsim::loggp {

template <class T, uint32_t N>
class InlineVec {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  InlineVec() = default;
  InlineVec(const InlineVec&) = delete;
  InlineVec& operator=(const InlineVec&) = delete;
  InlineVec(InlineVec&& o) noexcept { take(o); }
  InlineVec& operator=(InlineVec&& o) noexcept {
    if (this != &o) {
      delete[] heap_;
      take(o);
    }
    return *this;
  }
  ~InlineVec() { delete[] heap_; }

  uint32_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  T& operator[](uint32_t i) { return i < N ? in_[i] : heap_[i - N]; }
  const T& operator[](uint32_t i) const { return i < N ? in_[i] : heap_[i - N]; }
  T& back() { return (*this)[n_ - 1]; }
  void push_back(const T& v) {
    if (n_ < N) {
      in_[n_] = v;
    } else {
      if (n_ - N == cap_) grow();
      heap_[n_ - N] = v;
    }
    ++n_;
  }
  void pop_back() { --n_; }
  // The heap part given back when nothing is left in it.
  void shrink() {
    if (n_ > N || !heap_) return;
    delete[] heap_;
    heap_ = nullptr;
    cap_ = 0;
  }
  // Element i removed, the later ones moved up (a queue's order kept).
  void erase(uint32_t i) {
    for (uint32_t k = i; k + 1 < n_; ++k) (*this)[k] = (*this)[k + 1];
    pop_back();
  }
  // The first elements beyond the N kept here, asked for ahead of their use.
  void prefetch_heap() const {
    if (n_ > N) __builtin_prefetch(heap_);
  }

 private:
  void grow() {
    const uint32_t cap = std::max<uint32_t>(4, cap_ * 2);
    T* more = new T[cap];
    std::copy(heap_, heap_ + cap_, more);
    delete[] heap_;
    heap_ = more;
    cap_ = cap;
  }
  void take(InlineVec& o) {
    n_ = o.n_;
    cap_ = o.cap_;
    heap_ = std::exchange(o.heap_, nullptr);
    std::copy(o.in_, o.in_ + N, in_);
    o.n_ = o.cap_ = 0;
  }
  uint32_t n_ = 0, cap_ = 0;
  T in_[N];
  T* heap_ = nullptr;  // (the rare processor with more: one array for the rest)
};

}  // namespace ppsim::loggp
