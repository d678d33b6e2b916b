// typedtensor-run MODEL INPUTS.npz [-o OUTPUTS.npz]
// Runs a graph saved by tt.jit.save without Python: reads the inputs from an uncompressed
// np.savez file (in the order they were stored), re-applies the saved pass pipeline, runs the graph
// and writes the outputs as out_0, out_1, ... to an .npz (-o) or prints them.
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "typedtensor/checked.h"
#include "typedtensor/graph.h"
#include "typedtensor/ops.h"

namespace {

using tt::DType;
using tt::Shape;
using tt::Tensor;

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw Error("cannot open " + path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Every offset and length below comes from the file: sums are taken with typedtensor/checked.h
// (at()), and every read checks its range first, so no field can send a read outside the buffer.
uint64_t at(uint64_t a, uint64_t b) {
  uint64_t r;
  if (!tt::checked::add(a, b, &r)) throw Error("npz: offset out of range");
  return r;
}

uint64_t le(const std::string& s, uint64_t pos, int n) {
  if (!tt::checked::range_in(pos, static_cast<uint64_t>(n), s.size())) throw Error("npz: truncated zip structure");
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= static_cast<uint64_t>(static_cast<unsigned char>(s[pos + i])) << (8 * i);
  return v;
}

// ---- .npy ----
struct DtypeCode {
  const char* descr;
  DType dtype;
};
const DtypeCode kCodes[] = {{"<f4", DType::Float32}, {"<f8", DType::Float64}, {"<i8", DType::Int64},
                            {"<i4", DType::Int32},   {"|b1", DType::Bool},    {"|u1", DType::UInt8},
                            {"<f2", DType::Float16}};

std::string field(const std::string& header, const std::string& key) {
  size_t k = header.find("'" + key + "'");
  if (k == std::string::npos) throw Error("npy: header has no '" + key + "'");
  size_t colon = header.find(':', k);
  if (colon == std::string::npos) throw Error("npy: malformed header");
  return header.substr(colon + 1);
}

Tensor parse_npy(const std::string& b, const std::string& name) {
  if (b.size() < 10 || b.compare(0, 6, "\x93NUMPY") != 0) throw Error("npy " + name + ": bad magic");
  int major = static_cast<unsigned char>(b[6]);
  size_t hlen, hpos;
  if (major == 1) {
    hlen = le(b, 8, 2);
    hpos = 10;
  } else if (major == 2 || major == 3) {
    hlen = le(b, 8, 4);
    hpos = 12;
  } else {
    throw Error("npy " + name + ": unsupported version");
  }
  if (!tt::checked::range_in(hpos, hlen, b.size())) throw Error("npy " + name + ": truncated header");
  std::string h = b.substr(hpos, hlen);
  std::string d = field(h, "descr");
  size_t q1 = d.find('\''), q2 = q1 == std::string::npos ? q1 : d.find('\'', q1 + 1);
  if (q2 == std::string::npos) throw Error("npy " + name + ": malformed descr");
  std::string descr = d.substr(q1 + 1, q2 - q1 - 1);
  if (descr == "<b1" || descr == "=b1") descr = "|b1";
  if (descr == "<u1") descr = "|u1";
  const DtypeCode* code = nullptr;
  for (const auto& c : kCodes)
    if (descr == c.descr) code = &c;
  if (!code) throw Error("npy " + name + ": unsupported dtype '" + descr + "'");
  if (field(h, "fortran_order").find("True") < field(h, "fortran_order").find(','))
    throw Error("npy " + name + ": Fortran-ordered arrays are not supported");
  std::string s = field(h, "shape");
  size_t open = s.find('('), close = s.find(')');
  if (open == std::string::npos || close == std::string::npos) throw Error("npy " + name + ": malformed shape");
  Shape shape;
  std::string inner = s.substr(open + 1, close - open - 1);
  std::stringstream ss(inner);
  std::string tok;
  while (std::getline(ss, tok, ',')) {
    size_t a = tok.find_first_not_of(" "), z = tok.find_last_not_of(" ");
    if (a == std::string::npos) continue;
    tok = tok.substr(a, z - a + 1);
    char* end = nullptr;
    errno = 0;
    long long v = std::strtoll(tok.c_str(), &end, 10);
    if (*end || errno || v < 0) throw Error("npy " + name + ": bad dim '" + tok + "'");
    if (shape.size() >= 64) throw Error("npy " + name + ": more than 64 dims");
    shape.push_back(v);
  }
  // the data must be exactly what the shape says, checked before anything is allocated
  int64_t numel;
  size_t nbytes;
  if (!tt::checked::numel(shape.data(), shape.size(), &numel) ||
      !tt::checked::nbytes(numel, tt::itemsize(code->dtype), &nbytes) || b.size() - (hpos + hlen) != nbytes)
    throw Error("npy " + name + ": data size does not match the shape");
  Tensor t = tt::empty(shape, code->dtype);
  if (nbytes) std::memcpy(t.raw(), b.data() + hpos + hlen, nbytes);
  if (code->dtype == DType::Bool)  // a bool is one byte 0 or 1; anything else is not a bool
    for (size_t i = 0; i < nbytes; ++i)
      if (static_cast<unsigned char>(b[hpos + hlen + i]) > 1) throw Error("npy " + name + ": a bool holds a byte other than 0 or 1");
  return t;
}

std::string npy_bytes(const Tensor& t0) {
  Tensor t = tt::contiguous(t0);
  const char* descr = nullptr;
  for (const auto& c : kCodes)
    if (c.dtype == t.dtype()) descr = c.descr;
  if (!descr) {
    t = tt::to_dtype(t, DType::Float32);
    descr = "<f4";
  }
  std::string shape = "(";
  for (size_t i = 0; i < t.shape().size(); ++i) shape += std::to_string(t.shape()[i]) + (t.shape().size() == 1 ? "," : i + 1 < t.shape().size() ? ", " : "");
  shape += ")";
  std::string h = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  size_t total = 10 + h.size() + 1;
  h += std::string((64 - total % 64) % 64, ' ') + "\n";
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(h.size() & 0xff);
  out += static_cast<char>((h.size() >> 8) & 0xff);
  out += h;
  out.append(static_cast<const char*>(t.raw()), static_cast<size_t>(t.numel()) * t.itemsize());
  return out;
}

// ---- .npz (zip, stored entries only) ----
std::vector<std::pair<std::string, Tensor>> read_npz(const std::string& path) {
  std::string z = read_file(path);
  if (z.size() < 22) throw Error(path + ": not a zip file");
  size_t eocd = std::string::npos;
  for (size_t i = z.size() - 22 + 1; i-- > 0 && z.size() - i <= 65557;)
    if (le(z, i, 4) == 0x06054b50) {
      eocd = i;
      break;
    }
  if (eocd == std::string::npos) throw Error(path + ": not a zip file (no end of central directory)");
  uint64_t count = le(z, eocd + 10, 2), cd = le(z, eocd + 16, 4);
  if (cd == 0xffffffffu || count == 0xffff) {  // zip64 end of central directory
    if (eocd < 20 || le(z, eocd - 20, 4) != 0x07064b50) throw Error(path + ": bad zip64 locator");
    uint64_t z64 = le(z, eocd - 20 + 8, 8);
    if (le(z, z64, 4) != 0x06064b50) throw Error(path + ": bad zip64 record");
    count = le(z, at(z64, 32), 8);
    cd = le(z, at(z64, 48), 8);
  }
  std::vector<std::pair<std::string, Tensor>> out;
  uint64_t p = cd;
  for (uint64_t e = 0; e < count; ++e) {
    if (le(z, p, 4) != 0x02014b50) throw Error(path + ": bad central directory");
    uint64_t method = le(z, at(p, 10), 2), csize = le(z, at(p, 20), 4), usize = le(z, at(p, 24), 4);
    uint64_t nlen = le(z, at(p, 28), 2), xlen = le(z, at(p, 30), 2), clen = le(z, at(p, 32), 2), off = le(z, at(p, 42), 4);
    uint64_t name_at = at(p, 46), extra_at = at(name_at, nlen), extra_end = at(extra_at, xlen);
    if (extra_end > z.size()) throw Error(path + ": truncated central directory");
    std::string name = z.substr(name_at, nlen);
    for (uint64_t x = extra_at; x + 4 <= extra_end;) {  // zip64 extra field (x + 4 cannot wrap: x <= size)
      uint64_t id = le(z, x, 2), sz = le(z, x + 2, 2);
      if (id == 1) {
        uint64_t q = x + 4;
        if (usize == 0xffffffffu) usize = le(z, q, 8), q = at(q, 8);
        if (csize == 0xffffffffu) csize = le(z, q, 8), q = at(q, 8);
        if (off == 0xffffffffu) off = le(z, q, 8);
      }
      x = at(x, 4 + sz);
    }
    if (method != 0) throw Error(path + ": entry " + name + " is compressed; write inputs with np.savez, not savez_compressed");
    if (le(z, off, 4) != 0x04034b50) throw Error(path + ": bad local header for " + name);
    uint64_t data = at(at(at(off, 30), le(z, at(off, 26), 2)), le(z, at(off, 28), 2));
    if (!tt::checked::range_in(data, csize, z.size())) throw Error(path + ": truncated entry " + name);
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".npy") == 0) name = name.substr(0, name.size() - 4);
    out.emplace_back(name, parse_npy(z.substr(data, csize), name));
    p = at(extra_end, clen);
  }
  return out;
}

uint32_t crc32(const std::string& s) {
  static uint32_t table[256];
  static bool init = false;
  if (!init) {
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
      table[i] = c;
    }
    init = true;
  }
  uint32_t c = 0xffffffffu;
  for (unsigned char ch : s) c = table[(c ^ ch) & 0xff] ^ (c >> 8);
  return c ^ 0xffffffffu;
}

void put(std::string& s, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

void write_npz(const std::string& path, const std::vector<std::pair<std::string, Tensor>>& arrays) {
  std::string file, central;
  for (const auto& [name0, t] : arrays) {
    std::string name = name0 + ".npy", data = npy_bytes(t);
    if (data.size() >= 0xffffffffu) throw Error("output too large for this npz writer");
    uint32_t crc = crc32(data);
    uint64_t off = file.size();
    put(file, 0x04034b50, 4);
    put(file, 20, 2);
    put(file, 0, 2);
    put(file, 0, 2);
    put(file, 0, 4);
    put(file, crc, 4);
    put(file, data.size(), 4);
    put(file, data.size(), 4);
    put(file, name.size(), 2);
    put(file, 0, 2);
    file += name + data;
    put(central, 0x02014b50, 4);
    put(central, 20, 2);
    put(central, 20, 2);
    put(central, 0, 2);
    put(central, 0, 2);
    put(central, 0, 4);
    put(central, crc, 4);
    put(central, data.size(), 4);
    put(central, data.size(), 4);
    put(central, name.size(), 2);
    put(central, 0, 2);
    put(central, 0, 2);
    put(central, 0, 2);
    put(central, 0, 2);
    put(central, 0, 4);
    put(central, off, 4);
    central += name;
  }
  uint64_t cd = file.size();
  file += central;
  put(file, 0x06054b50, 4);
  put(file, 0, 4);
  put(file, arrays.size(), 2);
  put(file, arrays.size(), 2);
  put(file, central.size(), 4);
  put(file, cd, 4);
  put(file, 0, 2);
  std::ofstream f(path, std::ios::binary);
  f.write(file.data(), static_cast<std::streamsize>(file.size()));
  if (!f) throw Error("cannot write " + path);
}

void print_tensor(const std::string& name, const Tensor& t0) {
  Tensor t = tt::contiguous(tt::to_dtype(t0, DType::Float64));
  std::cout << name << ": " << tt::dtype_name(t0.dtype()) << " " << tt::shape_str(t0.shape()) << "\n";
  const double* p = t.data<double>();
  for (int64_t i = 0; i < t.numel(); ++i) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", p[i]);
    std::cout << (i ? " " : "") << buf;
  }
  std::cout << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  std::string model, inputs, out;
  std::vector<std::string> pos;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-o" && i + 1 < argc) out = argv[++i];
    else if (a == "-h" || a == "--help") pos.clear(), argc = 0;
    else pos.push_back(a);
  }
  if (pos.size() != 2) {
    std::cerr << "usage: typedtensor-run MODEL INPUTS.npz [-o OUTPUTS.npz]\n"
                 "  runs a graph saved by typedtensor.jit.save on the arrays of an np.savez file (in stored order)\n";
    return 2;
  }
  try {
    auto g = tt::graph::load(pos[0]);
    for (const auto& p : g->saved_pipeline) tt::graph::run_pass(*g, p);
    auto arrays = read_npz(pos[1]);
    tt::TensorList in;
    for (auto& a : arrays) in.push_back(a.second);
    tt::TensorList res = g->run(in);
    std::vector<std::pair<std::string, Tensor>> named;
    for (size_t i = 0; i < res.size(); ++i) named.emplace_back("out_" + std::to_string(i), res[i]);
    if (!out.empty()) write_npz(out, named);
    else
      for (auto& [n, t] : named) print_tensor(n, t);
  } catch (const std::exception& e) {
    std::cerr << "typedtensor-run: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
