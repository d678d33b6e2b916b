#pragma once
// Exceptions of the core. Only backend/python/ translates them into Python exceptions.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "typedtensor/small_vec.h"

namespace tt {

// A scalar argument of an op, reported with a ShapeError (e.g. {"dim", 3}).
using ParamValue = std::variant<int64_t, double, bool, std::string, std::vector<int64_t>>;
using Params = std::vector<std::pair<std::string, ParamValue>>;

// An input shape does not satisfy the op's shape rule. The bindings ask the Python op registry
// (typedtensor.shapes.runtime.explain) for the message, so the text matches the checkers'.
class ShapeError : public std::runtime_error {
 public:
  ShapeError(std::string op, std::vector<Shape> shapes, Params params, const std::string& fallback)
      : std::runtime_error("[" + op + "] " + fallback),
        op_(std::move(op)),
        shapes_(std::move(shapes)),
        params_(std::move(params)) {}
  const std::string& op() const { return op_; }
  const std::vector<Shape>& shapes() const { return shapes_; }
  const Params& params() const { return params_; }

 private:
  std::string op_;
  std::vector<Shape> shapes_;
  Params params_;
};

class TypeError : public std::runtime_error {
  using std::runtime_error::runtime_error;
};
class ValueError : public std::runtime_error {
  using std::runtime_error::runtime_error;
};
class IndexError : public std::runtime_error {
  using std::runtime_error::runtime_error;
};
class NotImplementedError : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string shape_str(const Shape& s);  // "[2, 3]"

}  // namespace tt

#define TT_CHECK(cond, Exc, msg)          \
  do {                                    \
    if (!(cond)) throw ::tt::Exc(msg);    \
  } while (0)
