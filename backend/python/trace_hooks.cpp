// Graph capture's view of the Python program: the user's source line for refusals and captured
// nodes, and tensors made from host data while a function is traced (tt.compile).

#include <functional>
#include <string>
#include <vector>

#include "convert.h"  // pybind11 and Python.h (the frame API)
#include "typedtensor/graph.h"
#include "typedtensor/primitive.h"

namespace ttpy {
namespace {

// The folders of the typedtensor package: frames there are the library's, not the user's. Only the
// entries of __path__ named typedtensor: an editable install's finder also lists the project root,
// which holds the user's tests and examples.
const std::vector<std::string>& library_dirs() {
  static const std::vector<std::string> dirs = [] {
    std::vector<std::string> out;
    try {
      for (auto p : py::module_::import("typedtensor").attr("__path__")) {
        std::string d = py::str(p).cast<std::string>();
        while (!d.empty() && d.back() == '/') d.pop_back();
        if (d.size() >= 12 && d.compare(d.size() - 12, 12, "/typedtensor") == 0) out.push_back(d + "/");
      }
    } catch (py::error_already_set&) {
    }
    return out;
  }();
  return dirs;
}

bool in_library(const std::string& file) {
  for (const auto& d : library_dirs())
    if (file.compare(0, d.size(), d) == 0) return true;
  return false;
}

// "file:line in function" of a frame (borrowed).
std::string describe(PyFrameObject* f) {
  PyCodeObject* code = PyFrame_GetCode(f);
  std::string file = py::str(code->co_filename).cast<std::string>();
  std::string fn = py::str(code->co_name).cast<std::string>();
  Py_DECREF(code);
  return file + ":" + std::to_string(PyFrame_GetLineNumber(f)) + " in " + fn;
}

std::string code_file(PyFrameObject* f) {
  PyCodeObject* code = PyFrame_GetCode(f);
  std::string file = py::str(code->co_filename).cast<std::string>();
  Py_DECREF(code);
  return file;
}

// The innermost frame outside the library: the line of the user's program making this call.
std::string user_frame() {
  py::gil_scoped_acquire gil;
  PyFrameObject* f = PyEval_GetFrame();  // borrowed
  Py_XINCREF(f);
  std::string out;
  while (f) {
    if (!in_library(code_file(f))) {
      out = describe(f);
      Py_DECREF(f);
      break;
    }
    PyFrameObject* back = PyFrame_GetBack(f);  // new reference
    Py_DECREF(f);
    f = back;
  }
  return out;
}

}  // namespace

void check_host_read(const Tensor& t, const char* what) {
  if (auto* g = dynamic_cast<tt::graph::GraphTracer*>(tt::current_tracer())) g->host_read(t, what);
}

void install_source_locator() { tt::set_source_locator(&user_frame); }

Tensor host_tensor(py::handle data, const char* what, const std::function<Tensor()>& make) {
  tt::Tracer* tracer = tt::current_tracer();
  // a tensor is the traced program's own value; a Python number is a constant like any other
  Scalar s;
  if (!tracer || is_tensor(data) || scalar_from(data, &s)) return make();
  // the library's own constants (made inside typedtensor) are not the user's host data
  PyFrameObject* f = PyEval_GetFrame();
  if (f && in_library(code_file(f))) return make();
  // built untraced (its casts and copies are not the graph's), then marked: a read refuses
  Tensor t;
  {
    tt::Tracer* prev = tt::set_tracer(nullptr);
    try {
      t = make();
    } catch (...) {
      tt::set_tracer(prev);
      throw;
    }
    tt::set_tracer(prev);
  }
  tracer->host_data(t, what, f ? describe(f) : std::string());
  return t;
}

}  // namespace ttpy
