// Graph mode's generated CUDA kernels (backend/src/graph/fusion_codegen.cpp generate_cuda): compiled at run
// time with NVRTC, loaded with the runtime's library API, cached on disk as PTX by source hash.
// NVRTC is loaded with dlopen, like cuBLAS (blas.cu): it is a separate wheel (nvidia-cuda-nvrtc)
// and the toolkit that builds us may not have it, so _C never links it and still imports without
// it; a missing NVRTC only means fused groups run their ops one by one (the caller's fallback).
// Search order: $TYPEDTENSOR_NVRTC (a file), the folders of set_cublas_search_path (the Python side
// passes site-packages/nvidia/{cu13,...}/lib), then the loader's own path; libnvrtc.so.13, then .12.
#include <dlfcn.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <vector>

#include "common.cuh"

namespace tt::cuda {
namespace {

using nvrtcProgram = void*;
using nvrtcResult = int;  // 0 = NVRTC_SUCCESS

struct Nvrtc {
  bool tried = false;
  std::string status = "not loaded yet";
  nvrtcResult (*create)(nvrtcProgram*, const char*, const char*, int, const char* const*, const char* const*) = nullptr;
  nvrtcResult (*compile)(nvrtcProgram, int, const char* const*) = nullptr;
  nvrtcResult (*ptx_size)(nvrtcProgram, size_t*) = nullptr;
  nvrtcResult (*ptx)(nvrtcProgram, char*) = nullptr;
  nvrtcResult (*log_size)(nvrtcProgram, size_t*) = nullptr;
  nvrtcResult (*log)(nvrtcProgram, char*) = nullptr;
  nvrtcResult (*destroy)(nvrtcProgram*) = nullptr;
  nvrtcResult (*version)(int*, int*) = nullptr;
  std::string tag;  // NVRTC version + target arch: part of the cache key
  std::map<std::string, void*> loaded;  // cache key -> kernel handle (libraries stay loaded)
};

std::mutex g_mu;

Nvrtc& nvrtc() {
  static Nvrtc n;
  return n;
}

template <class F>
bool sym(void* lib, const char* name, F*& out) {
  out = reinterpret_cast<F*>(dlsym(lib, name));
  return out != nullptr;
}

void try_load(Nvrtc& n) {
  n.tried = true;
  std::vector<std::string> files;
  if (const char* env = std::getenv("TYPEDTENSOR_NVRTC")) files.emplace_back(env);
  std::vector<std::string> dirs;
  std::string search = library_search_path();
  size_t start = 0;
  while (start <= search.size()) {
    size_t end = search.find(':', start);
    if (end == std::string::npos) end = search.size();
    if (end > start) dirs.push_back(search.substr(start, end - start));
    start = end + 1;
  }
  for (const char* ver : {"13", "12"}) {
    for (const auto& d : dirs) files.push_back(d + "/libnvrtc.so." + ver);
    files.push_back(std::string("libnvrtc.so.") + ver);
  }
  std::string errors;
  for (const auto& f : files) {
    void* lib = dlopen(f.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char* e = dlerror();
      if (errors.size() < 2000) errors += "\n  " + f + ": " + (e ? e : "not found");
      continue;
    }
    bool ok = sym(lib, "nvrtcCreateProgram", n.create) && sym(lib, "nvrtcCompileProgram", n.compile) &&
              sym(lib, "nvrtcGetPTXSize", n.ptx_size) && sym(lib, "nvrtcGetPTX", n.ptx) &&
              sym(lib, "nvrtcGetProgramLogSize", n.log_size) && sym(lib, "nvrtcGetProgramLog", n.log) &&
              sym(lib, "nvrtcDestroyProgram", n.destroy) && sym(lib, "nvrtcVersion", n.version);
    if (!ok) {
      errors += "\n  " + f + ": missing NVRTC entry points";
      dlclose(lib);
      continue;
    }
    int major = 0, minor = 0, dev = 0, cc_major = 0, cc_minor = 0;
    n.version(&major, &minor);
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&cc_major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&cc_minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess) {
      cudaGetLastError();  // not sticky: no device is not an error here
      n.create = nullptr;
      n.status = "NVRTC found at " + f + ", but no CUDA device to compile for";
      return;
    }
    n.tag = "nvrtc " + std::to_string(major) + "." + std::to_string(minor) + " compute_" + std::to_string(cc_major) +
            std::to_string(cc_minor);
    n.status = "loaded " + f + " (" + n.tag + ")";
    return;
  }
  n.create = nullptr;
  n.status = "NVRTC (libnvrtc.so.13) was not found; install the nvidia-cuda-nvrtc wheel or set TYPEDTENSOR_NVRTC "
             "to the library's path. Tried:" + errors;
}

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return "";
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// PTX of `source` from NVRTC, or "" with the log in *why.
std::string compile_ptx(Nvrtc& n, const std::string& source, std::string* why) {
  nvrtcProgram prog = nullptr;
  if (n.create(&prog, source.c_str(), "tt_fused.cu", 0, nullptr, nullptr) != 0) {
    *why = "nvrtcCreateProgram failed";
    return "";
  }
  std::string arch = "--gpu-architecture=" + n.tag.substr(n.tag.rfind(' ') + 1);
  const char* opts[] = {arch.c_str(), "--std=c++17"};
  nvrtcResult rc = n.compile(prog, 2, opts);
  std::string out;
  if (rc != 0) {
    size_t len = 0;
    n.log_size(prog, &len);
    std::string log(len, '\0');
    if (len) n.log(prog, log.data());
    *why = "NVRTC compilation failed: " + log.substr(0, 2000);
  } else {
    size_t len = 0;
    n.ptx_size(prog, &len);
    out.assign(len, '\0');
    if (len) n.ptx(prog, out.data());
    while (!out.empty() && out.back() == '\0') out.pop_back();
  }
  n.destroy(&prog);
  return out;
}

}  // namespace

void* load_generated(const std::string& source, const std::string& cache_dir, std::string* why) {
  std::lock_guard<std::mutex> lk(g_mu);
  Nvrtc& n = nvrtc();
  if (!n.tried) try_load(n);
  if (!n.create) {
    *why = n.status;
    return nullptr;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(fnv1a(source + "\n// " + n.tag)));
  std::string key = hex;
  if (auto it = n.loaded.find(key); it != n.loaded.end()) return it->second;
  std::string path = cache_dir + "/tt_" + key + ".ptx";
  std::string ptx = read_file(path);
  if (ptx.empty()) {
    ptx = compile_ptx(n, source, why);
    if (ptx.empty()) return nullptr;
    std::string tmp = path + "." + std::to_string(reinterpret_cast<uintptr_t>(&ptx));
    {
      std::ofstream f(tmp, std::ios::binary);
      f << ptx;
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) std::remove(tmp.c_str());  // the cache is best effort
  }
  cudaLibrary_t lib = nullptr;
  cudaError_t e = cudaLibraryLoadData(&lib, ptx.c_str(), nullptr, nullptr, 0, nullptr, nullptr, 0);
  if (e != cudaSuccess) {
    cudaGetLastError();
    *why = std::string("loading the generated PTX failed: ") + cudaGetErrorString(e);
    return nullptr;
  }
  cudaKernel_t kernel = nullptr;
  e = cudaLibraryGetKernel(&kernel, lib, "tt_kernel");
  if (e != cudaSuccess) {
    cudaGetLastError();
    *why = std::string("the generated PTX has no tt_kernel: ") + cudaGetErrorString(e);
    return nullptr;
  }
  n.loaded[key] = reinterpret_cast<void*>(kernel);
  return reinterpret_cast<void*>(kernel);
}

void launch_generated(void* kernel, std::vector<void*>& args, int64_t grid, int block) {
  cudaKernel_t k = reinterpret_cast<cudaKernel_t>(kernel);
  check(cudaLaunchKernel(reinterpret_cast<const void*>(k), dim3(static_cast<unsigned>(grid)),
                         dim3(static_cast<unsigned>(block)), args.data(), 0, kStream),
        "fused kernel");
}

std::string nvrtc_status() {
  std::lock_guard<std::mutex> lk(g_mu);
  Nvrtc& n = nvrtc();
  if (!n.tried) try_load(n);
  return n.status;
}

}  // namespace tt::cuda
