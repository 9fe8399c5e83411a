// A processor's few pending events or queued receives, for the window timings (loggp_windows.cpp,
// goal/goal_windows.h): the first N where the processor's state lies (a window reads thousands of
// processors, each through a pointer to its own heap block before: a cache miss apiece, and most
// of the timing's wall), any more on the heap. Elements stay in order.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

namespace ppsim::loggp {

template <class T, uint32_t N>
class InlineVec {
 public:
  uint32_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  T& operator[](uint32_t i) { return i < N ? in_[i] : (*out_)[i - N]; }
  const T& operator[](uint32_t i) const { return i < N ? in_[i] : (*out_)[i - N]; }
  T& back() { return (*this)[n_ - 1]; }
  void push_back(const T& v) {
    if (n_ < N) {
      in_[n_] = v;
    } else {
      if (!out_) out_ = std::make_unique<std::vector<T>>();
      out_->push_back(v);
    }
    ++n_;
  }
  void pop_back() {
    if (--n_ >= N) out_->pop_back();
  }
  // The heap part given back when nothing is left in it.
  void shrink() {
    if (n_ <= N) out_.reset();
  }
  // Element i removed, the later ones moved up (a queue's order kept).
  void erase(uint32_t i) {
    for (uint32_t k = i; k + 1 < n_; ++k) (*this)[k] = (*this)[k + 1];
    pop_back();
  }

 private:
  uint32_t n_ = 0;
  T in_[N];
  std::unique_ptr<std::vector<T>> out_;  // (the rare processor with more: one pointer for the rest)
};

}  // namespace ppsim::loggp
