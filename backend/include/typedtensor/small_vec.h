#pragma once
// SmallVec: a vector with inline storage for shapes and strides (no heap allocation up to N).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <vector>

namespace tt {

template <class T, size_t N = 6>
class SmallVec {
 public:
  SmallVec() = default;
  explicit SmallVec(size_t n, T v = T()) { resize(n, v); }
  SmallVec(std::initializer_list<T> il) { assign(il.begin(), il.end()); }
  template <class It>
  SmallVec(It first, It last) { assign(first, last); }
  SmallVec(const std::vector<T>& v) { assign(v.begin(), v.end()); }  // NOLINT: implicit by design
  SmallVec(const SmallVec& o) { assign(o.begin(), o.end()); }
  SmallVec(SmallVec&& o) noexcept { move_from(std::move(o)); }
  SmallVec& operator=(const SmallVec& o) {
    if (this != &o) assign(o.begin(), o.end());
    return *this;
  }
  SmallVec& operator=(SmallVec&& o) noexcept {
    if (this != &o) move_from(std::move(o));
    return *this;
  }

  T* data() { return heap_ ? heap_.get() : inline_; }
  const T* data() const { return heap_ ? heap_.get() : inline_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](size_t i) { return data()[i]; }
  const T& operator[](size_t i) const { return data()[i]; }
  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }
  T& back() { return data()[size_ - 1]; }
  const T& back() const { return data()[size_ - 1]; }
  T& front() { return data()[0]; }
  const T& front() const { return data()[0]; }

  void reserve(size_t n) {
    if (n <= cap_) return;
    std::unique_ptr<T[]> h(new T[n]);  // NOLINT: owned by unique_ptr
    std::copy(begin(), end(), h.get());
    heap_ = std::move(h);
    cap_ = n;
  }
  void resize(size_t n, T v = T()) {
    reserve(n);
    for (size_t i = size_; i < n; ++i) data()[i] = v;
    size_ = n;
  }
  void clear() { size_ = 0; }
  void push_back(T v) {
    if (size_ == cap_) reserve(cap_ * 2);
    data()[size_++] = v;
  }
  void pop_back() { --size_; }
  void insert(size_t pos, T v) {
    push_back(v);
    std::rotate(begin() + pos, end() - 1, end());
  }
  void erase(size_t pos) {
    std::copy(begin() + pos + 1, end(), begin() + pos);
    --size_;
  }
  template <class It>
  void assign(It first, It last) {
    size_t n = static_cast<size_t>(std::distance(first, last));
    size_ = 0;
    reserve(n);
    std::copy(first, last, data());
    size_ = n;
  }
  std::vector<T> vec() const { return std::vector<T>(begin(), end()); }

  friend bool operator==(const SmallVec& a, const SmallVec& b) {
    return a.size_ == b.size_ && std::equal(a.begin(), a.end(), b.begin());
  }
  friend bool operator!=(const SmallVec& a, const SmallVec& b) { return !(a == b); }

 private:
  void move_from(SmallVec&& o) {
    if (o.heap_) {
      heap_ = std::move(o.heap_);
      cap_ = o.cap_;
      size_ = o.size_;
      o.cap_ = N;
      o.size_ = 0;
    } else {
      heap_.reset();
      cap_ = N;
      assign(o.begin(), o.end());
    }
  }
  size_t size_ = 0;
  size_t cap_ = N;
  T inline_[N] = {};
  std::unique_ptr<T[]> heap_;
};

using Shape = SmallVec<int64_t>;
using Strides = SmallVec<int64_t>;

}  // namespace tt
