// Save / load: a versioned binary container, nothing executed on load.
//   "TTGRAPH\0" | u32 version | u64 header length | header (text tokens) | u64 data length | data | u32 crc
// The CRC-32 (zlib's) covers every byte before it; version 1 files, written before it existed, have
// none and still load.
// The header lists the values (type; constants point into the data block), inputs, nodes (op name,
// operand ids, typed attributes), outputs and the pass pipeline to re-apply after loading. Fused
// nodes are saved un-fused (fusion and memory planning are re-run on load). Every count, id, size
// and offset is range-checked, every op must be one the verifier can check, and the graph is
// verified before it is returned: a malformed file raises GraphError, never reads out of bounds.
#include <array>
#include <cstring>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include "internal.h"
#include "typedtensor/checked.h"
#include "typedtensor/ops.h"
#include "typedtensor/op_info.h"

namespace tt::graph {
namespace {

constexpr char kMagic[8] = {'T', 'T', 'G', 'R', 'A', 'P', 'H', '\0'};
constexpr uint32_t kVersion = 2;       // with the CRC-32 trailer
constexpr uint32_t kVersionNoCrc = 1;  // read, never written

uint32_t crc32(const char* p, size_t n) {
  static const auto table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < n; ++i) c = table[(c ^ static_cast<unsigned char>(p[i])) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

bool saveable(const std::string& op) {
  const OpInfo* info = primitive_info(op);
  return info && info->saveable;
}

const char* dtype_token(DType d) { return dtype_name(d); }

void put_u32(std::string& s, uint32_t v) {
  for (int i = 0; i < 4; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void put_u64(std::string& s, uint64_t v) {
  for (int i = 0; i < 8; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

[[noreturn]] void bad(const std::string& what, const std::string& why) {
  throw GraphError(what + ": not a valid typedtensor graph file: " + why);
}

class Reader {
 public:
  Reader(const std::string& text, const std::string& what) : is_(text), what_(what) {}
  std::string word() {
    std::string w;
    if (!(is_ >> w)) bad(what_, "header ends early");
    for (char c : w)  // names reach Python as str: printable ASCII only
      if (c < 0x21 || c > 0x7e) bad(what_, "a header word holds a byte that is not printable ASCII");
    return w;
  }
  void expect(const char* w) {
    std::string got = word();
    if (got != w) bad(what_, std::string("expected '") + w + "', found '" + got.substr(0, 40) + "'");
  }
  int64_t integer(int64_t lo, int64_t hi) {
    std::string w = word();
    char* end = nullptr;
    errno = 0;
    long long v = std::strtoll(w.c_str(), &end, 10);
    if (errno || end != w.c_str() + w.size() || w.empty() || v < lo || v > hi)
      bad(what_, "bad integer '" + w.substr(0, 40) + "'");
    return v;
  }
  uint64_t u64() {
    std::string w = word();
    char* end = nullptr;
    errno = 0;
    unsigned long long v = std::strtoull(w.c_str(), &end, 16);
    if (errno || end != w.c_str() + w.size() || w.empty()) bad(what_, "bad hex '" + w.substr(0, 40) + "'");
    return v;
  }

 private:
  std::istringstream is_;
  const std::string& what_;
};

DType dtype_from(const std::string& w, const std::string& what) {
  for (int i = 0; i < kNumDTypes; ++i)
    if (w == dtype_name(static_cast<DType>(i))) return static_cast<DType>(i);
  bad(what, "unknown dtype '" + w.substr(0, 40) + "'");
}

}  // namespace

void save(const Graph& g0, const std::string& path) {
  auto gp = g0.clone();
  Graph& g = *gp;
  unfuse(g);
  dce(g);
  std::vector<int> id(g.values.size(), -1);
  std::vector<int> order;
  auto use = [&](int v) {
    if (v >= 0 && id[v] < 0) {
      id[v] = static_cast<int>(order.size());
      order.push_back(v);
    }
  };
  for (int v : g.inputs) use(v);
  for (const Node& n : g.nodes) {
    if (!n.attrs || !saveable(n.op))
      throw NotImplementedError("tt.jit.save: primitive '" + n.op + "' cannot be saved yet");
    for (int v : n.inputs) use(v);
    for (int v : n.outputs) use(v);
  }
  for (int v : g.outputs) use(v);
  std::ostringstream h;
  std::string data;
  h << "typedtensor-graph 1\npasses " << g0.passes_run.size();
  for (const auto& p : g0.passes_run) h << " " << p;
  h << "\nvalues " << order.size() << "\n";
  EvalGuard guard;
  for (int v : order) {
    const Value& val = g.values[v];
    const char* kind = val.kind == ValueKind::Input ? "input" : val.kind == ValueKind::Node ? "node" : "const";
    h << "value " << id[v] << " " << kind << " " << dtype_token(val.dtype) << " " << val.shape.size();
    for (int64_t d : val.shape) h << " " << d;
    if (val.kind == ValueKind::Capture || val.kind == ValueKind::Const) {
      if (val.data.device().type != DeviceType::CPU) throw NotImplementedError("tt.jit.save: constants must be on the CPU");
      Tensor c = contiguous(val.data);
      size_t nbytes = static_cast<size_t>(c.numel()) * c.itemsize();
      h << " " << data.size() << " " << nbytes;
      data.append(static_cast<const char*>(c.raw()), nbytes);
    }
    h << "\n";
  }
  h << "inputs " << g.inputs.size();
  for (int v : g.inputs) h << " " << id[v];
  h << "\nnodes " << g.nodes.size() << "\n";
  for (const Node& n : g.nodes) {
    h << "node " << n.op << " " << n.inputs.size();
    for (int v : n.inputs) h << " " << (v < 0 ? -1 : id[v]);
    h << " " << n.outputs.size();
    for (int v : n.outputs) h << " " << id[v];
    h << " " << n.attrs->size();
    for (const auto& [k, a] : *n.attrs) {
      h << " " << k;
      if (auto i = std::get_if<int64_t>(&a)) {
        h << " i " << *i;
      } else if (auto d = std::get_if<double>(&a)) {
        uint64_t bits;
        std::memcpy(&bits, d, 8);
        h << " f " << std::hex << bits << std::dec;
      } else if (auto b = std::get_if<bool>(&a)) {
        h << " b " << (*b ? 1 : 0);
      } else if (auto l = std::get_if<std::vector<int64_t>>(&a)) {
        h << " l " << l->size();
        for (int64_t x : *l) h << " " << x;
      } else {
        throw NotImplementedError("tt.jit.save: string attribute on " + n.op);
      }
    }
    h << "\n";
  }
  h << "outputs " << g.outputs.size();
  for (int v : g.outputs) h << " " << id[v];
  h << "\nend\n";
  std::string header = h.str(), file(kMagic, 8);
  put_u32(file, kVersion);
  put_u64(file, header.size());
  file += header;
  put_u64(file, data.size());
  file += data;
  put_u32(file, crc32(file.data(), file.size()));
  std::ofstream f(path, std::ios::binary);
  if (!f) throw ValueError("tt.jit.save: cannot open " + path + " for writing");
  f.write(file.data(), static_cast<std::streamsize>(file.size()));
  if (!f) throw ValueError("tt.jit.save: write to " + path + " failed");
}

namespace {
std::shared_ptr<Graph> load_payload(const std::string& bytes, const std::string& what);
}

std::shared_ptr<Graph> load_bytes(const std::string& bytes, const std::string& what) {
  if (bytes.size() >= 12 && std::memcmp(bytes.data(), kMagic, 8) == 0 &&
      static_cast<unsigned char>(bytes[8]) == kVersion && !bytes[9] && !bytes[10] && !bytes[11]) {
    if (bytes.size() < 24) bad(what, "truncated");
    uint32_t want = 0;
    for (int i = 0; i < 4; ++i) want |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[bytes.size() - 4 + i])) << (8 * i);
    if (crc32(bytes.data(), bytes.size() - 4) != want) bad(what, "checksum mismatch: the file is corrupted or truncated");
    return load_payload(bytes.substr(0, bytes.size() - 4), what);
  }
  return load_payload(bytes, what);
}

namespace {
// The container without its CRC trailer (version 1 files have none).
std::shared_ptr<Graph> load_payload(const std::string& bytes, const std::string& what) {
  auto u64_at = [&](size_t pos) {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[pos + i])) << (8 * i);
    return v;
  };
  if (bytes.size() < 20 || std::memcmp(bytes.data(), kMagic, 8) != 0) bad(what, "missing magic (not a tt.jit.save file)");
  uint32_t version = 0;
  for (int i = 0; i < 4; ++i) version |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
  if (version != kVersion && version != kVersionNoCrc)
    bad(what, "format version " + std::to_string(version) + " is not supported (this build reads versions 1 and " + std::to_string(kVersion) + ")");
  // every bound below is computed with typedtensor/checked.h: no count or offset can wrap
  uint64_t hlen = u64_at(12);
  if (!checked::range_in(20, hlen, bytes.size())) bad(what, "truncated header");
  size_t dpos = 20 + hlen;
  if (!checked::range_in(dpos, 8, bytes.size())) bad(what, "truncated (no data block)");
  uint64_t dlen = u64_at(dpos);
  if (dlen != bytes.size() - dpos - 8) bad(what, "truncated or oversized data block");
  const char* data = bytes.data() + dpos + 8;
  std::string header = bytes.substr(20, hlen);
  Reader r(header, what);
  constexpr int64_t kMaxCount = 10000000;
  auto g = std::make_shared<Graph>();
  r.expect("typedtensor-graph");
  r.expect("1");
  r.expect("passes");
  int64_t np = r.integer(0, 64);
  for (int64_t i = 0; i < np; ++i) g->saved_pipeline.push_back(r.word());
  r.expect("values");
  int64_t nv = r.integer(0, kMaxCount);
  for (int64_t i = 0; i < nv; ++i) {
    r.expect("value");
    if (r.integer(0, kMaxCount) != i) bad(what, "values out of order");
    std::string kind = r.word();
    DType dt = dtype_from(r.word(), what);
    int64_t rank = r.integer(0, 64);
    Shape s;
    for (int64_t k = 0; k < rank; ++k) s.push_back(r.integer(0, std::numeric_limits<int64_t>::max()));
    int64_t numel;
    size_t value_bytes;
    if (!checked::numel(s.data(), s.size(), &numel) || !checked::nbytes(numel, itemsize(dt), &value_bytes))
      bad(what, "value " + std::to_string(i) + " has an impossible shape");
    if (kind == "input" || kind == "node") {
      g->add_value(kind == "input" ? ValueKind::Input : ValueKind::Node, s, dt);
    } else if (kind == "const") {
      int64_t off = r.integer(0, std::numeric_limits<int64_t>::max());
      int64_t nbytes = r.integer(0, std::numeric_limits<int64_t>::max());
      if (static_cast<uint64_t>(nbytes) != value_bytes)
        bad(what, "constant " + std::to_string(i) + " size does not match its type");
      if (!checked::range_in(static_cast<uint64_t>(off), static_cast<uint64_t>(nbytes), dlen))
        bad(what, "constant " + std::to_string(i) + " lies outside the data block");
      Tensor t = empty(s, dt);
      if (nbytes) std::memcpy(t.raw(), data + off, static_cast<size_t>(nbytes));
      g->add_value(ValueKind::Const, s, dt, t);
    } else {
      bad(what, "unknown value kind '" + kind.substr(0, 40) + "'");
    }
  }
  auto vid = [&](bool allow_none) {
    int64_t v = r.integer(allow_none ? -1 : 0, nv - 1);
    return static_cast<int>(v);
  };
  r.expect("inputs");
  int64_t ni = r.integer(0, nv);
  for (int64_t i = 0; i < ni; ++i) g->inputs.push_back(vid(false));
  r.expect("nodes");
  int64_t nn = r.integer(0, kMaxCount);
  for (int64_t i = 0; i < nn; ++i) {
    r.expect("node");
    Node n;
    n.op = r.word();
    if (!saveable(n.op)) bad(what, "primitive '" + n.op.substr(0, 40) + "' is not allowed in a saved graph");
    int64_t k = r.integer(0, 4096);
    for (int64_t j = 0; j < k; ++j) n.inputs.push_back(vid(true));
    k = r.integer(1, 16);
    for (int64_t j = 0; j < k; ++j) n.outputs.push_back(vid(false));
    int64_t na = r.integer(0, 32);
    Params attrs;
    for (int64_t j = 0; j < na; ++j) {
      std::string key = r.word(), type = r.word();
      if (type == "i") {
        attrs.emplace_back(key, r.integer(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()));
      } else if (type == "f") {
        uint64_t bits = r.u64();
        double d;
        std::memcpy(&d, &bits, 8);
        attrs.emplace_back(key, d);
      } else if (type == "b") {
        attrs.emplace_back(key, r.integer(0, 1) == 1);
      } else if (type == "l") {
        int64_t len = r.integer(0, 64);
        std::vector<int64_t> l;
        for (int64_t q = 0; q < len; ++q) l.push_back(r.integer(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()));
        attrs.emplace_back(key, l);
      } else {
        bad(what, "unknown attribute type '" + type.substr(0, 40) + "'");
      }
    }
    try {
      n.prim = make_primitive(n.op, attrs);
    } catch (const std::exception& e) {
      bad(what, e.what());
    }
    if (!n.prim) bad(what, "unknown primitive '" + n.op + "'");
    n.attrs = std::move(attrs);
    g->nodes.push_back(std::move(n));
  }
  r.expect("outputs");
  int64_t no = r.integer(0, kMaxCount);
  for (int64_t i = 0; i < no; ++i) g->outputs.push_back(vid(false));
  r.expect("end");
  try {
    g->verify();
  } catch (const GraphError& e) {
    bad(what, e.what());
  }
  return g;
}

}  // namespace

std::shared_ptr<Graph> load(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw ValueError("tt.jit.load: cannot open " + path);
  std::stringstream ss;
  ss << f.rdbuf();
  return load_bytes(ss.str(), path);
}

}  // namespace tt::graph
