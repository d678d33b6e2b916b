// Overflow-checked integer arithmetic for sizes, strides and offsets that come from outside the
// process: a saved graph (tt.jit.load), an .npz / .npy file (typedtensor-run), a Python argument.
// Every loader computes its bounds with these helpers, so no bound can wrap around and let a read
// or a write land outside its buffer. Each helper returns false where the exact result does not
// fit (never a wrapped value); the caller raises its own error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

namespace tt::checked {

// *out = a + b, a - b, a * b; false when the exact result does not fit in T.
template <class T>
[[nodiscard]] inline bool add(T a, T b, T* out) {
  return !__builtin_add_overflow(a, b, out);
}
template <class T>
[[nodiscard]] inline bool sub(T a, T b, T* out) {
  return !__builtin_sub_overflow(a, b, out);
}
template <class T>
[[nodiscard]] inline bool mul(T a, T b, T* out) {
  return !__builtin_mul_overflow(a, b, out);
}

// Whether the byte range [pos, pos + n) lies inside a buffer of `size` bytes.
[[nodiscard]] inline bool range_in(uint64_t pos, uint64_t n, uint64_t size) { return pos <= size && n <= size - pos; }

// *out = the number of elements of a shape; false for a negative size or a product past int64.
[[nodiscard]] inline bool numel(const int64_t* shape, size_t rank, int64_t* out) {
  bool empty = false;
  for (size_t i = 0; i < rank; ++i) {
    if (shape[i] < 0) return false;
    empty = empty || shape[i] == 0;
  }
  if (empty) return *out = 0, true;  // the other sizes cannot overflow a product of 0
  int64_t n = 1;
  for (size_t i = 0; i < rank; ++i)
    if (!mul(n, shape[i], &n)) return false;
  *out = n;
  return true;
}

// *out = the bytes of `count` elements of `itemsize` bytes each, as a size_t.
[[nodiscard]] inline bool nbytes(int64_t count, size_t itemsize, size_t* out) {
  if (count < 0) return false;
  return mul(static_cast<size_t>(count), itemsize, out);
}

// The elements a strided view reads: `offset` plus, per dim, 0 .. (shape[i] - 1) * strides[i].
// `empty` when some size is 0 (the view reads nothing); else [lo, hi] are the lowest and highest
// element offsets it reads. False on a negative size or when any partial sum overflows int64.
struct Extent {
  int64_t lo = 0, hi = 0;
  bool empty = false;
};
[[nodiscard]] inline bool view_extent(const int64_t* shape, const int64_t* strides, size_t rank, int64_t offset,
                                      Extent* e) {
  *e = Extent{offset, offset, false};
  for (size_t i = 0; i < rank; ++i)
    if (shape[i] < 0) return false;
  for (size_t i = 0; i < rank; ++i)
    if (shape[i] == 0) return e->empty = true, true;
  for (size_t i = 0; i < rank; ++i) {
    int64_t span;
    if (!mul(shape[i] - 1, strides[i], &span)) return false;
    if (!add(span < 0 ? e->lo : e->hi, span, span < 0 ? &e->lo : &e->hi)) return false;
  }
  return true;
}

// Whether a strided view lies inside storage of `capacity` elements (a view reading nothing always
// does; a negative offset never does).
[[nodiscard]] inline bool view_in_bounds(const int64_t* shape, const int64_t* strides, size_t rank, int64_t offset,
                                         int64_t capacity) {
  Extent e;
  if (offset < 0 || !view_extent(shape, strides, rank, offset, &e)) return false;
  return e.empty || (e.lo >= 0 && e.hi < capacity);
}

}  // namespace tt::checked
