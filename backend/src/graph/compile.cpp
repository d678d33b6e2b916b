// Run-time compilation of generated kernels with the system C++ compiler, cached on disk by the
// hash of the source and the command (so a kernel is compiled once per machine, not per process).
// Compiler: $TYPEDTENSOR_CXX (default g++). Cache: $TYPEDTENSOR_KERNEL_CACHE, else
// $XDG_CACHE_HOME/typedtensor/kernels, else ~/.cache/typedtensor/kernels.
#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>

#include "internal.h"

namespace tt::graph {
namespace {

const char* kFlags = "-O3 -march=native -fopenmp -fno-math-errno -fno-trapping-math -std=c++17 -shared -fPIC";

// A loaded kernel library: closed when the last kernel using it goes (a compiled function that
// keeps meeting new shapes loads a library per shape; graphs dropped from its bounded cache must
// take theirs along, or the process grows by one mapped library per shape).
struct LoadedKernel {
  void* handle = nullptr;
  void* fn = nullptr;
  ~LoadedKernel() {
    if (handle) dlclose(handle);
  }
};

struct CompilerState {
  std::mutex mu;
  bool probed = false;
  CompilerStatus status;
  std::map<std::string, std::weak_ptr<LoadedKernel>> loaded;  // hash -> the library while in use
};
CompilerState& state() {
  static CompilerState s;
  return s;
}

std::string env_or(const char* name, const std::string& def) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : def;
}

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) {
    if (c == '\'') q += "'\\''";
    else q += c;
  }
  return q + "'";
}

std::string cache_dir() {
  if (const char* d = std::getenv("TYPEDTENSOR_KERNEL_CACHE"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/typedtensor/kernels";
  std::string home = env_or("HOME", "/tmp");
  return home + "/.cache/typedtensor/kernels";
}

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

// Must hold the state lock.
void probe(CompilerState& st) {
  if (st.probed) return;
  st.probed = true;
  st.status.compiler = env_or("TYPEDTENSOR_CXX", "g++");
  st.status.cache_dir = cache_dir();
  std::string cmd = quote(st.status.compiler) + " --version > /dev/null 2>&1";
  st.status.available = std::system(cmd.c_str()) == 0;
  if (!st.status.available) st.status.last_error = "compiler '" + st.status.compiler + "' not found or not runnable";
}

std::shared_ptr<LoadedKernel> open_symbol(const std::string& so, std::string* err) {
  auto lib = std::make_shared<LoadedKernel>();
  lib->handle = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib->handle) {
    *err = std::string("dlopen failed: ") + dlerror();
    return nullptr;
  }
  lib->fn = dlsym(lib->handle, "tt_kernel");
  if (!lib->fn) {
    *err = "generated library has no tt_kernel";
    return nullptr;
  }
  return lib;
}

}  // namespace

std::string kernel_cache_dir() { return cache_dir(); }

CompilerStatus compiler_status() {
  auto& st = state();
  std::lock_guard<std::mutex> lock(st.mu);
  probe(st);
  return st.status;
}

void reset_compiler_probe() {
  auto& st = state();
  std::lock_guard<std::mutex> lock(st.mu);
  st.probed = false;
  st.status = CompilerStatus{};
  st.loaded.clear();
}

void note_interpreted() {
  auto& st = state();
  std::lock_guard<std::mutex> lock(st.mu);
  ++st.status.interpreted;
}

std::shared_ptr<void> compile_kernel(const std::string& source) {
  auto& st = state();
  std::lock_guard<std::mutex> lock(st.mu);
  probe(st);
  if (!st.status.available) return nullptr;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx",
                static_cast<unsigned long long>(fnv1a(source + "\n// " + st.status.compiler + " " + kFlags)));
  std::string key = hex;
  // the symbol, sharing ownership of its library (an aliasing pointer)
  auto symbol = [](const std::shared_ptr<LoadedKernel>& lib) { return std::shared_ptr<void>(lib, lib->fn); };
  if (auto it = st.loaded.find(key); it != st.loaded.end()) {
    if (auto lib = it->second.lock()) {
      ++st.status.cache_hits;
      return symbol(lib);
    }
    st.loaded.erase(it);
  }
  for (auto it = st.loaded.begin(); it != st.loaded.end();)  // forget closed libraries
    it = it->second.expired() ? st.loaded.erase(it) : std::next(it);
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(st.status.cache_dir, ec);
  if (ec) {
    st.status.last_error = "cannot create kernel cache " + st.status.cache_dir + ": " + ec.message();
    return nullptr;
  }
  std::string base = st.status.cache_dir + "/tt_" + key;
  std::string so = base + ".so", err;
  if (fs::exists(so)) {
    if (auto lib = open_symbol(so, &err)) {
      ++st.status.cache_hits;
      st.loaded[key] = lib;
      return symbol(lib);
    }
  }
  std::string tag = "." + std::to_string(getpid());
  std::string src = base + tag + ".cpp", tmp = base + tag + ".so", log = base + tag + ".log";
  {
    std::ofstream f(src);
    f << source;
    if (!f) {
      st.status.last_error = "cannot write " + src;
      return nullptr;
    }
  }
  std::string cmd = quote(st.status.compiler) + " " + kFlags + " -o " + quote(tmp) + " " + quote(src) + " > " + quote(log) + " 2>&1";
  int rc = std::system(cmd.c_str());
  if (rc != 0) {
    std::ifstream lf(log);
    std::stringstream ss;
    ss << lf.rdbuf();
    st.status.last_error = "kernel compilation failed (" + cmd + "): " + ss.str().substr(0, 2000);
    fs::remove(tmp, ec);
    fs::remove(log, ec);
    return nullptr;  // the source stays beside the cache for inspection
  }
  fs::rename(tmp, so, ec);
  if (ec) so = tmp;
  fs::remove(log, ec);
  fs::rename(src, base + ".cpp", ec);
  auto lib = open_symbol(so, &err);
  if (!lib) {
    st.status.last_error = err;
    return nullptr;
  }
  ++st.status.compiled;
  st.loaded[key] = lib;
  return symbol(lib);
}

}  // namespace tt::graph
