// Bindings of graph mode (backend/src/graph): the tracer, the Graph and its passes, save/load.
#include "convert.h"
#include "typedtensor/graph.h"

namespace ttpy {
namespace tg = tt::graph;

namespace {
py::dict attrs_dict(const std::optional<tt::Params>& attrs) {
  py::dict d;
  if (attrs)
    for (const auto& [k, v] : *attrs) d[py::str(k)] = py::cast(v);
  return d;
}

py::tuple node_tuple(const tg::Node& n);

py::list body_list(const tg::Node& n) {
  py::list body;
  if (const auto* b = tg::fused_body(n))
    for (const auto& x : *b) body.append(node_tuple(x));
  return body;
}

py::tuple node_tuple(const tg::Node& n) {
  return py::make_tuple(n.op, attrs_dict(n.attrs), n.inputs, n.outputs, body_list(n), n.attrs.has_value(), n.where);
}
}  // namespace

void bind_graph(py::module_& m) {
  static py::exception<tg::GraphError> graph_error(m, "GraphError", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const tg::GraphError& e) {
      py::set_error(graph_error, e.what());
    }
  });

  py::class_<tg::Graph, std::shared_ptr<tg::Graph>>(m, "_Graph")
      .def("__str__", &tg::Graph::str)
      .def("verify", &tg::Graph::verify)
      .def("clone", &tg::Graph::clone)
      .def("run_pass", [](tg::Graph& g, const std::string& name) { return tg::run_pass(g, name); })
      .def("run", [](tg::Graph& g, const std::vector<Tensor>& in) { return g.run(in); })
      .def("freeze", [](tg::Graph& g) {
        for (auto& v : g.values)
          if (v.kind == tg::ValueKind::Capture) {
            v.kind = tg::ValueKind::Const;
            v.data = tt::clone(v.data);
          }
      })
      .def("unfuse", [](tg::Graph& g) { tg::unfuse(g); })
      .def_readonly("inputs", &tg::Graph::inputs)
      .def_readonly("outputs", &tg::Graph::outputs)
      .def_readonly("passes_run", &tg::Graph::passes_run)
      .def_readonly("saved_pipeline", &tg::Graph::saved_pipeline)
      .def_readonly("num_slots", &tg::Graph::num_slots)
      .def("nodes", [](const tg::Graph& g) {
        py::list out;
        for (const auto& n : g.nodes) out.append(node_tuple(n));
        return out;
      })
      .def("num_values", [](const tg::Graph& g) { return g.values.size(); })
      .def("value", [](const tg::Graph& g, int id) {
        if (id < 0 || id >= static_cast<int>(g.values.size())) throw tt::IndexError("graph value id out of range");
        const auto& v = g.values[id];
        py::object data = v.data.defined() ? py::cast(v.data) : py::none();
        return py::make_tuple(tg::kind_name(v.kind), shape_tuple(v.shape), dtype_object(v.dtype), data, v.slot);
      })
      .def("op_counts", &tg::Graph::op_counts)
      .def("in_place_writes", [](const tg::Graph& g) {
        std::vector<std::pair<int, int>> out;  // (value, the capture a fused kernel writes it into)
        for (size_t v = 0; v < g.write_into.size(); ++v)
          if (g.write_into[v] >= 0) out.emplace_back(static_cast<int>(v), g.write_into[v]);
        return out;
      })
      .def("kernels", [](const tg::Graph& g) {
        py::list out;
        for (const auto& n : g.nodes)
          if (tg::fused_body(n)) out.append(py::make_tuple(tg::fused_mode(n), tg::fused_source(n)));
        return out;
      })
      .def("cuda_kernels", [](const tg::Graph& g) {
        py::list out;
        for (const auto& n : g.nodes)
          if (tg::fused_body(n)) out.append(tg::fused_cuda_source(n));
        return out;
      })
      .def("save", [](const tg::Graph& g, const std::string& path) { tg::save(g, path); });

  py::class_<tg::GraphTracer>(m, "_GraphTracer")
      .def(py::init<>())
      .def("begin", &tg::GraphTracer::begin)
      .def("finish", &tg::GraphTracer::finish)
      .def("abort", &tg::GraphTracer::abort)
      .def("writebacks", &tg::GraphTracer::writebacks);

  m.def("_graph_tracing", [] { return dynamic_cast<tg::GraphTracer*>(tt::current_tracer()) != nullptr; });
  m.def("_graph_persist", [](const Tensor& t) {
    if (auto* g = dynamic_cast<tg::GraphTracer*>(tt::current_tracer())) g->persist(t);
  });
  m.def("_graph_load", [](const std::string& path) { return tg::load(path); });
  m.def("_graph_load_bytes", [](const py::bytes& b, const std::string& what) { return tg::load_bytes(std::string(b), what); });
  m.def("_graph_default_pipeline", [] { return tg::default_pipeline(); });
  m.def("_graph_epilogue_block_rows", [](int64_t rows) { tg::set_epilogue_block_rows(rows); });
  m.def("_graph_epilogue_packed", [](bool on) { tg::set_epilogue_packed(on); });
  m.def("_graph_compiler_status", [] {
    auto s = tg::compiler_status();
    py::dict d;
    d["available"] = s.available;
    d["compiler"] = s.compiler;
    d["cache_dir"] = s.cache_dir;
    d["last_error"] = s.last_error;
    d["compiled"] = s.compiled;
    d["cache_hits"] = s.cache_hits;
    d["interpreted"] = s.interpreted;
    return d;
  });
  m.def("_graph_reset_compiler", [] { tg::reset_compiler_probe(); });
  m.def("_graph_profile", [](bool on) { tg::set_profiling(on); });
  m.def("_graph_profile_report", [](bool reset) { return tg::profile_report(reset); }, py::arg("reset") = true);
}

}  // namespace ttpy
