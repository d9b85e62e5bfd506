// pyptx launch shim: one small launch core shared by the PyTorch and JAX front-ends.
//
// The shim keeps a process-wide table of registered kernels (cubin + launch configuration +
// parameter layout) keyed by a 64-bit handle chosen by pyptx.runtime, and launches them with
// cuLaunchKernelEx (cluster dimensions, dynamic shared memory, the max-dynamic-smem function
// attribute). Python reaches it through ctypes (pyptx/runtime/_shim.py); XLA reaches it through
// the typed FFI handler PyptxXlaLaunch, compiled in when the XLA FFI headers are available.
//
// The shim never links against libcuda: on the first launch it dlopen()s libcuda.so.1, or the
// library named by the environment variable PYPTX_LIBCUDA (read then, once), and resolves every
// entry point through cuGetProcAddress with the exact ABI version of the PFN type it uses
// (cudaTypedefs.h). Building it needs the CUDA headers only, no driver, no GPU.
//
// C ABI (bump PYPTX_SHIM_ABI_VERSION, and SHIM_ABI_VERSION in _shim.py, on any change):
//   int pyptx_shim_abi_version(void);
//   int pyptx_register(handle, kernel_name, image, image_size, grid[3], block[3], cluster[3],
//                      dynamic_smem_bytes, params, nparams, err, errlen);
//   int pyptx_launch(handle, stream, buffers, nbuffers, scalars, scalar_bytes, device,
//                    err, errlen);
//   int pyptx_unregister(handle);
//   int pyptx_query(handle, nparams_out, nmodules_out);
// Return codes: see PyptxStatus below. Error messages are written NUL-terminated into err.

#include <dlfcn.h>

#include <atomic>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include <cuda.h>
#include <cudaTypedefs.h>

#ifndef PYPTX_SHIM_ABI_VERSION
#define PYPTX_SHIM_ABI_VERSION 1
#endif

#define PYPTX_EXPORT extern "C" __attribute__((visibility("default")))

// ------------------------------------------------------------------------------------------
// Public types
// ------------------------------------------------------------------------------------------

enum PyptxStatus : int {
  PYPTX_OK = 0,
  PYPTX_ERR_ARGUMENT = 1,   // bad handle, index, configuration: a caller bug
  PYPTX_ERR_NO_DRIVER = 2,  // libcuda missing, too old, or cuInit failed
  PYPTX_ERR_CUDA = 3,       // a driver call failed (message names it and the CUresult)
  PYPTX_ERR_INTERNAL = 4,   // out of memory or another shim-internal failure
};

enum PyptxParamKind : uint32_t {
  PYPTX_PARAM_POINTER = 0,     // 8-byte device pointer taken from buffers[index]
  PYPTX_PARAM_SCALAR = 1,      // `size` bytes copied from scalars + index
  PYPTX_PARAM_TENSOR_MAP = 2,  // 128-byte CUtensorMap template, address := buffers[index]
};

// One kernel parameter, in declaration order. Mirrored by ctypes in _shim.py.
struct PyptxParam {
  uint32_t kind;
  uint32_t size;
  uint32_t align;
  uint32_t index;
  const uint8_t* tmap_template;  // 128 bytes for PYPTX_PARAM_TENSOR_MAP, else unused
};

namespace {

constexpr uint32_t kTensorMapBytes = 128;
constexpr uint32_t kTensorMapAlign = 64;  // CUtensorMap is 64-byte aligned
constexpr uint32_t kDefaultSmemLimit = 48 * 1024;
constexpr uint32_t kPortableClusterSize = 8;
constexpr size_t kInlineArenaBytes = 4096;
constexpr size_t kInlineParams = 64;

void set_error(char* err, size_t errlen, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));

void set_error(char* err, size_t errlen, const char* fmt, ...) {
  if (err == nullptr || errlen == 0) return;
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

// ------------------------------------------------------------------------------------------
// Driver entry points, resolved once on first use
// ------------------------------------------------------------------------------------------

struct Driver {
  PFN_cuGetErrorName_v6000 GetErrorName = nullptr;
  PFN_cuGetErrorString_v6000 GetErrorString = nullptr;
  PFN_cuInit_v2000 Init = nullptr;
  PFN_cuDeviceGet_v2000 DeviceGet = nullptr;
  PFN_cuDevicePrimaryCtxRetain_v7000 PrimaryCtxRetain = nullptr;
  PFN_cuCtxGetCurrent_v4000 CtxGetCurrent = nullptr;
  PFN_cuCtxPushCurrent_v4000 CtxPushCurrent = nullptr;
  PFN_cuCtxPopCurrent_v4000 CtxPopCurrent = nullptr;
  PFN_cuCtxGetDevice_v2000 CtxGetDevice = nullptr;
  PFN_cuCtxGetId_v12000 CtxGetId = nullptr;  // optional: keys modules by a unique context id
  PFN_cuStreamGetCtx_v9020 StreamGetCtx = nullptr;
  PFN_cuThreadExchangeStreamCaptureMode_v10010 ExchangeCaptureMode = nullptr;
  PFN_cuModuleLoadData_v2000 ModuleLoadData = nullptr;
  PFN_cuModuleGetFunction_v2000 ModuleGetFunction = nullptr;
  PFN_cuModuleUnload_v2000 ModuleUnload = nullptr;
  PFN_cuFuncSetAttribute_v9000 FuncSetAttribute = nullptr;
  PFN_cuLaunchKernelEx_v11060 LaunchKernelEx = nullptr;
  PFN_cuTensorMapReplaceAddress_v12000 TensorMapReplaceAddress = nullptr;
  std::string error;  // empty when every required entry point resolved and cuInit succeeded
};

// Writes "CUDA_ERROR_... (description)", or "CUresult <n>" when the driver cannot name `r`.
void describe_result(const Driver& d, CUresult r, char* out, size_t outlen) {
  const char* name = nullptr;
  const char* text = nullptr;
  if (d.GetErrorName == nullptr || d.GetErrorName(r, &name) != CUDA_SUCCESS || name == nullptr) {
    std::snprintf(out, outlen, "CUresult %d", static_cast<int>(r));
  } else if (d.GetErrorString == nullptr || d.GetErrorString(r, &text) != CUDA_SUCCESS ||
             text == nullptr) {
    std::snprintf(out, outlen, "%s", name);
  } else {
    std::snprintf(out, outlen, "%s (%s)", name, text);
  }
}

Driver load_driver() {
  Driver d;
  // $PYPTX_LIBCUDA names a specific driver library (a non-default install, a test stand-in).
  const char* env = std::getenv("PYPTX_LIBCUDA");
  const bool from_env = env != nullptr && env[0] != '\0';
  const std::string path = from_env ? env : "libcuda.so.1";
  const std::string described = from_env ? path + " (from PYPTX_LIBCUDA)" : path;
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = dlerror();
    d.error = "the CUDA driver library " + described + " could not be loaded (" +
              (why ? why : "unknown dlopen error") +
              "); a launch needs an NVIDIA driver and GPU";
    return d;
  }
  auto gpa2 = reinterpret_cast<PFN_cuGetProcAddress_v12000>(dlsym(lib, "cuGetProcAddress_v2"));
  auto gpa1 = reinterpret_cast<PFN_cuGetProcAddress_v11030>(dlsym(lib, "cuGetProcAddress"));
  if (gpa2 == nullptr && gpa1 == nullptr) {
    d.error = "the CUDA driver library " + described +
              " has no cuGetProcAddress; pyptx needs a CUDA 12 or newer driver";
    return d;
  }
  // The legacy default-stream flavour: stream 0 means the legacy NULL stream, as in PyTorch.
  const cuuint64_t flags = CU_GET_PROC_ADDRESS_LEGACY_STREAM;
  auto resolve = [&](const char* name, int version, void** out, bool required) {
    *out = nullptr;
    CUresult r;
    if (gpa2 != nullptr) {
      CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SUCCESS;
      r = gpa2(name, out, version, flags, &status);
      if (status != CU_GET_PROC_ADDRESS_SUCCESS) r = CUDA_ERROR_NOT_FOUND;
    } else {
      r = gpa1(name, out, version, flags);
    }
    if (r != CUDA_SUCCESS || *out == nullptr) {
      *out = nullptr;
      if (required && d.error.empty()) {
        d.error = std::string("the CUDA driver does not provide ") + name + " (ABI of CUDA " +
                  std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10) +
                  "); pyptx needs a CUDA 12 or newer driver";
      }
    }
  };
#define PYPTX_RESOLVE(field, sym, ver, required) \
  resolve(#sym, ver, reinterpret_cast<void**>(&d.field), required)
  PYPTX_RESOLVE(GetErrorName, cuGetErrorName, 6000, true);
  PYPTX_RESOLVE(GetErrorString, cuGetErrorString, 6000, true);
  PYPTX_RESOLVE(Init, cuInit, 2000, true);
  PYPTX_RESOLVE(DeviceGet, cuDeviceGet, 2000, true);
  PYPTX_RESOLVE(PrimaryCtxRetain, cuDevicePrimaryCtxRetain, 7000, true);
  PYPTX_RESOLVE(CtxGetCurrent, cuCtxGetCurrent, 4000, true);
  PYPTX_RESOLVE(CtxPushCurrent, cuCtxPushCurrent, 4000, true);
  PYPTX_RESOLVE(CtxPopCurrent, cuCtxPopCurrent, 4000, true);
  PYPTX_RESOLVE(CtxGetDevice, cuCtxGetDevice, 2000, true);
  PYPTX_RESOLVE(CtxGetId, cuCtxGetId, 12000, false);
  PYPTX_RESOLVE(StreamGetCtx, cuStreamGetCtx, 9020, true);
  PYPTX_RESOLVE(ExchangeCaptureMode, cuThreadExchangeStreamCaptureMode, 10010, true);
  PYPTX_RESOLVE(ModuleLoadData, cuModuleLoadData, 2000, true);
  PYPTX_RESOLVE(ModuleGetFunction, cuModuleGetFunction, 2000, true);
  PYPTX_RESOLVE(ModuleUnload, cuModuleUnload, 2000, true);
  PYPTX_RESOLVE(FuncSetAttribute, cuFuncSetAttribute, 9000, true);
  PYPTX_RESOLVE(LaunchKernelEx, cuLaunchKernelEx, 11060, true);
  PYPTX_RESOLVE(TensorMapReplaceAddress, cuTensorMapReplaceAddress, 12000, true);
#undef PYPTX_RESOLVE
  if (!d.error.empty()) return d;
  CUresult r = d.Init(0);
  if (r != CUDA_SUCCESS) {
    char what[256];
    describe_result(d, r, what, sizeof(what));
    d.error = std::string("cuInit failed with ") + what + ": no usable NVIDIA driver or GPU";
  }
  return d;
}

const Driver& driver() {
  static const Driver d = load_driver();  // thread-safe one-time initialisation
  return d;
}

// Whether load_driver() has run; unregistering never forces the driver to load.
std::atomic<bool> g_driver_touched{false};

const Driver& touch_driver() {
  const Driver& d = driver();
  g_driver_touched.store(true, std::memory_order_release);
  return d;
}

int cuda_error(char* err, size_t errlen, CUresult r, const char* what, const char* kernel) {
  char result[256];
  describe_result(driver(), r, result, sizeof(result));
  set_error(err, errlen, "%s failed with %s for kernel '%s'", what, result, kernel);
  return PYPTX_ERR_CUDA;
}

// Pushes `ctx` if it is not current and pops it on scope exit.
class ContextGuard {
 public:
  ContextGuard(const Driver& d, CUcontext ctx, CUcontext current) : d_(d) {
    if (ctx != current) {
      result_ = d.CtxPushCurrent(ctx);
      pushed_ = result_ == CUDA_SUCCESS;
    }
  }
  ~ContextGuard() {
    if (pushed_) {
      CUcontext popped = nullptr;
      d_.CtxPopCurrent(&popped);
    }
  }
  CUresult result() const { return result_; }
  ContextGuard(const ContextGuard&) = delete;
  ContextGuard& operator=(const ContextGuard&) = delete;

 private:
  const Driver& d_;
  CUresult result_ = CUDA_SUCCESS;
  bool pushed_ = false;
};

// Lets the current thread make driver calls that are unsafe during stream capture (module
// loading) while another stream is being captured, e.g. the first launch of a kernel inside
// torch.cuda.graph or an XLA command buffer.
class RelaxedCapture {
 public:
  explicit RelaxedCapture(const Driver& d) : d_(d) {
    ok_ = d.ExchangeCaptureMode(&mode_) == CUDA_SUCCESS;
  }
  ~RelaxedCapture() {
    if (ok_) d_.ExchangeCaptureMode(&mode_);
  }
  RelaxedCapture(const RelaxedCapture&) = delete;
  RelaxedCapture& operator=(const RelaxedCapture&) = delete;

 private:
  const Driver& d_;
  CUstreamCaptureMode mode_ = CU_STREAM_CAPTURE_MODE_RELAXED;
  bool ok_ = false;
};

// ------------------------------------------------------------------------------------------
// Kernel registry
// ------------------------------------------------------------------------------------------

struct Slot {
  uint32_t kind;
  uint32_t size;
  uint32_t align;
  uint32_t index;
  uint32_t offset;  // in the per-launch argument arena
  std::vector<uint8_t> tmpl;
};

struct Loaded {
  unsigned long long ctx_id;
  CUcontext ctx;
  CUmodule module;
  CUfunction function;
};

struct Kernel {
  std::string name;
  std::vector<uint8_t> image;  // cubin (or PTX) plus one trailing NUL
  uint32_t grid[3];
  uint32_t block[3];
  uint32_t cluster[3];
  uint32_t smem;
  std::vector<Slot> slots;
  size_t arena_bytes = 0;
  std::vector<Loaded> loaded;  // guarded by g_mutex

  bool clustered() const { return cluster[0] * cluster[1] * cluster[2] != 1; }

  // Unloads the module from every context that loaded one. Runs when the last reference goes
  // away: unregistering, or the end of a launch that raced with unregistering.
  ~Kernel() {
    if (loaded.empty() || !g_driver_touched.load(std::memory_order_acquire)) return;
    const Driver& d = driver();
    if (!d.error.empty()) return;
    CUcontext current = nullptr;
    if (d.CtxGetCurrent(&current) != CUDA_SUCCESS) return;  // driver deinitialised at exit
    for (const Loaded& l : loaded) {
      ContextGuard guard(d, l.ctx, current);
      if (guard.result() == CUDA_SUCCESS) d.ModuleUnload(l.module);
    }
  }
};

std::mutex g_mutex;

std::unordered_map<uint64_t, std::shared_ptr<Kernel>>& kernels() {
  // Deliberately leaked: Python finalizers may unregister kernels during interpreter exit,
  // after static destructors would have run.
  static auto* table = new std::unordered_map<uint64_t, std::shared_ptr<Kernel>>();
  return *table;
}

std::vector<CUcontext>& primary_contexts() {  // retained once per device, never released
  static auto* contexts = new std::vector<CUcontext>();
  return *contexts;
}

bool is_power_of_two(uint32_t v) { return v != 0 && (v & (v - 1)) == 0; }

size_t align_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

bool same_config(const Kernel& k, const std::string& name, const uint8_t* image,
                 size_t image_size, const uint32_t grid[3], const uint32_t block[3],
                 const uint32_t cluster[3], uint32_t smem, const std::vector<Slot>& slots) {
  if (k.name != name || k.image.size() != image_size + 1 || k.smem != smem) return false;
  if (std::memcmp(k.image.data(), image, image_size) != 0) return false;
  for (int i = 0; i < 3; ++i) {
    if (k.grid[i] != grid[i] || k.block[i] != block[i] || k.cluster[i] != cluster[i]) {
      return false;
    }
  }
  if (k.slots.size() != slots.size()) return false;
  for (size_t i = 0; i < slots.size(); ++i) {
    const Slot& a = k.slots[i];
    const Slot& b = slots[i];
    if (a.kind != b.kind || a.size != b.size || a.align != b.align || a.index != b.index ||
        a.tmpl != b.tmpl) {
      return false;
    }
  }
  return true;
}

// The primary context of `device`, retained on first use. Caller holds g_mutex.
int primary_context(const Driver& d, int device, CUcontext* out, const char* kernel, char* err,
                    size_t errlen) {
  auto& contexts = primary_contexts();
  if (device < 0) {
    set_error(err, errlen, "no CUDA context is current and no device was given for kernel '%s'",
              kernel);
    return PYPTX_ERR_ARGUMENT;
  }
  if (static_cast<size_t>(device) < contexts.size() && contexts[device] != nullptr) {
    *out = contexts[device];
    return PYPTX_OK;
  }
  CUdevice_v1 dev = 0;
  CUresult r = d.DeviceGet(&dev, device);
  if (r != CUDA_SUCCESS) return cuda_error(err, errlen, r, "cuDeviceGet", kernel);
  CUcontext ctx = nullptr;
  r = d.PrimaryCtxRetain(&ctx, dev);
  if (r != CUDA_SUCCESS) return cuda_error(err, errlen, r, "cuDevicePrimaryCtxRetain", kernel);
  if (contexts.size() <= static_cast<size_t>(device)) contexts.resize(device + 1, nullptr);
  contexts[device] = ctx;
  *out = ctx;
  return PYPTX_OK;
}

// The function of `k` in `ctx` (current), loading the module on first use. Caller holds g_mutex.
int function_in_context(const Driver& d, Kernel& k, CUcontext ctx, CUfunction* out, char* err,
                        size_t errlen) {
  unsigned long long ctx_id = reinterpret_cast<uintptr_t>(ctx);
  if (d.CtxGetId != nullptr) {
    unsigned long long id = 0;
    if (d.CtxGetId(ctx, &id) == CUDA_SUCCESS) ctx_id = id;
  }
  for (const Loaded& l : k.loaded) {
    if (l.ctx_id == ctx_id && l.ctx == ctx) {
      *out = l.function;
      return PYPTX_OK;
    }
  }
  RelaxedCapture relaxed(d);
  CUmodule module = nullptr;
  CUresult r = d.ModuleLoadData(&module, k.image.data());
  if (r != CUDA_SUCCESS) return cuda_error(err, errlen, r, "cuModuleLoadData", k.name.c_str());
  CUfunction fn = nullptr;
  r = d.ModuleGetFunction(&fn, module, k.name.c_str());
  if (r != CUDA_SUCCESS) {
    d.ModuleUnload(module);
    return cuda_error(err, errlen, r, "cuModuleGetFunction", k.name.c_str());
  }
  if (k.smem > kDefaultSmemLimit) {
    r = d.FuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                           static_cast<int>(k.smem));
    if (r != CUDA_SUCCESS) {
      d.ModuleUnload(module);
      return cuda_error(err, errlen, r,
                        "cuFuncSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)",
                        k.name.c_str());
    }
  }
  if (k.cluster[0] * k.cluster[1] * k.cluster[2] > kPortableClusterSize) {
    r = d.FuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1);
    if (r != CUDA_SUCCESS) {
      d.ModuleUnload(module);
      return cuda_error(err, errlen, r,
                        "cuFuncSetAttribute(CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED)",
                        k.name.c_str());
    }
  }
  k.loaded.push_back(Loaded{ctx_id, ctx, module, fn});
  *out = fn;
  return PYPTX_OK;
}

bool is_special_stream(CUstream s) {
  return s == nullptr || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD;
}

// The launch core shared by the ctypes entry point and the XLA handler.
int launch_core(uint64_t handle, CUstream stream, const uint64_t* buffers, uint32_t nbuffers,
                const uint8_t* scalars, uint32_t scalar_bytes, int device, char* err,
                size_t errlen) {
  std::shared_ptr<Kernel> kp;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    auto it = kernels().find(handle);
    if (it != kernels().end()) kp = it->second;
  }
  if (!kp) {
    set_error(err, errlen, "kernel handle %llu is not registered (or was unregistered)",
              static_cast<unsigned long long>(handle));
    return PYPTX_ERR_ARGUMENT;
  }
  Kernel& k = *kp;
  const char* kname = k.name.c_str();
  for (size_t i = 0; i < k.slots.size(); ++i) {
    const Slot& s = k.slots[i];
    if (s.kind == PYPTX_PARAM_SCALAR) {
      if (static_cast<uint64_t>(s.index) + s.size > scalar_bytes) {
        set_error(err, errlen,
                  "parameter %zu of kernel '%s' reads scalar bytes [%u, %u), but only %u scalar "
                  "bytes were passed",
                  i, kname, s.index, s.index + s.size, scalar_bytes);
        return PYPTX_ERR_ARGUMENT;
      }
    } else if (s.index >= nbuffers) {
      set_error(err, errlen,
                "parameter %zu of kernel '%s' uses buffer %u, but only %u buffers were passed", i,
                kname, s.index, nbuffers);
      return PYPTX_ERR_ARGUMENT;
    }
  }

  const Driver& d = touch_driver();
  if (!d.error.empty()) {
    set_error(err, errlen, "cannot launch kernel '%s': %s", kname, d.error.c_str());
    return PYPTX_ERR_NO_DRIVER;
  }

  // The context: the stream's own; for the special streams the current context when it is on
  // `device` (or no device was given), else the primary context of `device`.
  CUcontext current = nullptr;
  CUresult r = d.CtxGetCurrent(&current);
  if (r != CUDA_SUCCESS) return cuda_error(err, errlen, r, "cuCtxGetCurrent", kname);
  CUcontext ctx = nullptr;
  if (!is_special_stream(stream)) {
    r = d.StreamGetCtx(stream, &ctx);
    if (r != CUDA_SUCCESS) return cuda_error(err, errlen, r, "cuStreamGetCtx", kname);
  } else if (current != nullptr) {
    CUdevice_v1 cur_dev = -1;
    if (device < 0 || (d.CtxGetDevice(&cur_dev) == CUDA_SUCCESS && cur_dev == device)) {
      ctx = current;
    }
  }
  if (ctx == nullptr) {
    std::lock_guard<std::mutex> lock(g_mutex);
    int rc = primary_context(d, device, &ctx, kname, err, errlen);
    if (rc != PYPTX_OK) return rc;
  }
  ContextGuard guard(d, ctx, current);
  if (guard.result() != CUDA_SUCCESS) {
    return cuda_error(err, errlen, guard.result(), "cuCtxPushCurrent", kname);
  }
  CUfunction fn = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    int rc = function_in_context(d, k, ctx, &fn, err, errlen);
    if (rc != PYPTX_OK) return rc;
  }

  // Pack the arguments into a 64-byte aligned arena; kernelParams points into it. The driver
  // copies the values at launch (or at capture), so the arena lives on this stack frame.
  alignas(64) uint8_t inline_arena[kInlineArenaBytes];
  void* inline_params[kInlineParams];
  std::unique_ptr<uint8_t[]> heap_arena;
  std::unique_ptr<void*[]> heap_params;
  uint8_t* arena = inline_arena;
  void** params = inline_params;
  if (k.arena_bytes > kInlineArenaBytes) {
    heap_arena.reset(new (std::nothrow) uint8_t[k.arena_bytes + kTensorMapAlign]);
    if (!heap_arena) {
      set_error(err, errlen, "out of memory packing the arguments of kernel '%s'", kname);
      return PYPTX_ERR_INTERNAL;
    }
    arena = reinterpret_cast<uint8_t*>(
        align_up(reinterpret_cast<uintptr_t>(heap_arena.get()), kTensorMapAlign));
  }
  if (k.slots.size() > kInlineParams) {
    heap_params.reset(new (std::nothrow) void*[k.slots.size()]);
    if (!heap_params) {
      set_error(err, errlen, "out of memory packing the arguments of kernel '%s'", kname);
      return PYPTX_ERR_INTERNAL;
    }
    params = heap_params.get();
  }
  for (size_t i = 0; i < k.slots.size(); ++i) {
    const Slot& s = k.slots[i];
    uint8_t* dst = arena + s.offset;
    switch (s.kind) {
      case PYPTX_PARAM_POINTER:
        std::memcpy(dst, &buffers[s.index], sizeof(uint64_t));
        break;
      case PYPTX_PARAM_SCALAR:
        std::memcpy(dst, scalars + s.index, s.size);
        break;
      case PYPTX_PARAM_TENSOR_MAP: {
        std::memcpy(dst, s.tmpl.data(), kTensorMapBytes);
        uint64_t address = 0;
        std::memcpy(&address, &buffers[s.index], sizeof(uint64_t));
        r = d.TensorMapReplaceAddress(reinterpret_cast<CUtensorMap*>(dst),
                                      reinterpret_cast<void*>(address));
        if (r != CUDA_SUCCESS) {
          char what[96];
          std::snprintf(what, sizeof(what), "cuTensorMapReplaceAddress (parameter %zu)", i);
          return cuda_error(err, errlen, r, what, kname);
        }
        break;
      }
    }
    params[i] = dst;
  }

  CUlaunchAttribute attrs[1];
  CUlaunchConfig cfg;
  std::memset(&cfg, 0, sizeof(cfg));
  cfg.gridDimX = k.grid[0];
  cfg.gridDimY = k.grid[1];
  cfg.gridDimZ = k.grid[2];
  cfg.blockDimX = k.block[0];
  cfg.blockDimY = k.block[1];
  cfg.blockDimZ = k.block[2];
  cfg.sharedMemBytes = k.smem;
  cfg.hStream = stream;
  if (k.clustered()) {
    std::memset(attrs, 0, sizeof(attrs));
    attrs[0].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attrs[0].value.clusterDim.x = k.cluster[0];
    attrs[0].value.clusterDim.y = k.cluster[1];
    attrs[0].value.clusterDim.z = k.cluster[2];
    cfg.attrs = attrs;
    cfg.numAttrs = 1;
  }
  r = d.LaunchKernelEx(&cfg, fn, k.slots.empty() ? nullptr : params, nullptr);
  if (r != CUDA_SUCCESS) return cuda_error(err, errlen, r, "cuLaunchKernelEx", kname);
  return PYPTX_OK;
}

}  // namespace

// ------------------------------------------------------------------------------------------
// C ABI
// ------------------------------------------------------------------------------------------

PYPTX_EXPORT int pyptx_shim_abi_version(void) { return PYPTX_SHIM_ABI_VERSION; }

// Registers a kernel under `handle`. Copies everything it is given; touches no driver.
// Re-registering a handle with the identical configuration is a no-op; with a different one it
// is an error (two kernels must never share a handle).
PYPTX_EXPORT int pyptx_register(uint64_t handle, const char* kernel_name, const void* image,
                                size_t image_size, const uint32_t grid[3],
                                const uint32_t block[3], const uint32_t cluster[3],
                                uint32_t dynamic_smem_bytes, const PyptxParam* params,
                                uint32_t nparams, char* err, size_t errlen) {
  try {
    if (kernel_name == nullptr || kernel_name[0] == '\0') {
      set_error(err, errlen, "kernel name is empty");
      return PYPTX_ERR_ARGUMENT;
    }
    if (image == nullptr || image_size == 0) {
      set_error(err, errlen, "kernel '%s' has an empty image", kernel_name);
      return PYPTX_ERR_ARGUMENT;
    }
    if (grid == nullptr || block == nullptr || cluster == nullptr ||
        (nparams > 0 && params == nullptr)) {
      set_error(err, errlen, "kernel '%s': null grid, block, cluster or params", kernel_name);
      return PYPTX_ERR_ARGUMENT;
    }
    uint64_t threads = 1;
    for (int i = 0; i < 3; ++i) {
      if (grid[i] == 0 || block[i] == 0 || cluster[i] == 0) {
        set_error(err, errlen,
                  "kernel '%s': grid (%u, %u, %u), block (%u, %u, %u) and cluster (%u, %u, %u) "
                  "must all be positive",
                  kernel_name, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                  cluster[0], cluster[1], cluster[2]);
        return PYPTX_ERR_ARGUMENT;
      }
      if (grid[i] % cluster[i] != 0) {
        set_error(err, errlen,
                  "kernel '%s': grid (%u, %u, %u) is not a multiple of cluster (%u, %u, %u)",
                  kernel_name, grid[0], grid[1], grid[2], cluster[0], cluster[1], cluster[2]);
        return PYPTX_ERR_ARGUMENT;
      }
      threads *= block[i];
    }
    if (threads > 1024) {
      set_error(err, errlen, "kernel '%s': block (%u, %u, %u) has %llu threads, more than 1024",
                kernel_name, block[0], block[1], block[2],
                static_cast<unsigned long long>(threads));
      return PYPTX_ERR_ARGUMENT;
    }
    std::vector<Slot> slots;
    slots.reserve(nparams);
    size_t offset = 0;
    for (uint32_t i = 0; i < nparams; ++i) {
      const PyptxParam& p = params[i];
      Slot s{p.kind, p.size, p.align, p.index, 0, {}};
      switch (p.kind) {
        case PYPTX_PARAM_POINTER:
          if (p.size != 8 || p.align != 8) {
            set_error(err, errlen,
                      "kernel '%s' parameter %u: a pointer has size 8 and alignment 8, got size "
                      "%u alignment %u",
                      kernel_name, i, p.size, p.align);
            return PYPTX_ERR_ARGUMENT;
          }
          break;
        case PYPTX_PARAM_SCALAR:
          if (p.size == 0 || !is_power_of_two(p.align) || p.align > 64) {
            set_error(err, errlen,
                      "kernel '%s' parameter %u: a scalar needs a positive size and a "
                      "power-of-two alignment <= 64, got size %u alignment %u",
                      kernel_name, i, p.size, p.align);
            return PYPTX_ERR_ARGUMENT;
          }
          break;
        case PYPTX_PARAM_TENSOR_MAP:
          if (p.size != kTensorMapBytes || p.align != kTensorMapAlign ||
              p.tmap_template == nullptr) {
            set_error(err, errlen,
                      "kernel '%s' parameter %u: a tensor map has size 128, alignment 64 and a "
                      "template, got size %u alignment %u template %s",
                      kernel_name, i, p.size, p.align, p.tmap_template ? "set" : "null");
            return PYPTX_ERR_ARGUMENT;
          }
          s.tmpl.assign(p.tmap_template, p.tmap_template + kTensorMapBytes);
          break;
        default:
          set_error(err, errlen, "kernel '%s' parameter %u: unknown kind %u", kernel_name, i,
                    p.kind);
          return PYPTX_ERR_ARGUMENT;
      }
      offset = align_up(offset, s.align);
      s.offset = static_cast<uint32_t>(offset);
      offset += s.size;
      slots.push_back(std::move(s));
    }
    const std::string name(kernel_name);
    const auto* bytes = static_cast<const uint8_t*>(image);
    std::lock_guard<std::mutex> lock(g_mutex);
    auto it = kernels().find(handle);
    if (it != kernels().end()) {
      if (same_config(*it->second, name, bytes, image_size, grid, block, cluster,
                      dynamic_smem_bytes, slots)) {
        return PYPTX_OK;
      }
      set_error(err, errlen,
                "kernel handle %llu is already registered for kernel '%s' with a different "
                "image or launch configuration",
                static_cast<unsigned long long>(handle), it->second->name.c_str());
      return PYPTX_ERR_ARGUMENT;
    }
    auto k = std::make_shared<Kernel>();
    k->name = name;
    k->image.assign(bytes, bytes + image_size);
    k->image.push_back(0);  // lets the image be NUL-terminated PTX as well as a cubin
    for (int i = 0; i < 3; ++i) {
      k->grid[i] = grid[i];
      k->block[i] = block[i];
      k->cluster[i] = cluster[i];
    }
    k->smem = dynamic_smem_bytes;
    k->slots = std::move(slots);
    k->arena_bytes = offset;
    kernels().emplace(handle, std::move(k));
    return PYPTX_OK;
  } catch (const std::exception& e) {
    set_error(err, errlen, "registering kernel failed: %s", e.what());
    return PYPTX_ERR_INTERNAL;
  }
}

// Launches the kernel registered under `handle` on `stream` (a CUstream; 0 is the legacy
// default stream of the current context, or of device `device`'s primary context).
PYPTX_EXPORT int pyptx_launch(uint64_t handle, void* stream, const uint64_t* buffers,
                              uint32_t nbuffers, const uint8_t* scalars, uint32_t scalar_bytes,
                              int device, char* err, size_t errlen) {
  try {
    return launch_core(handle, static_cast<CUstream>(stream), buffers, nbuffers, scalars,
                       scalar_bytes, device, err, errlen);
  } catch (const std::exception& e) {
    set_error(err, errlen, "launch failed: %s", e.what());
    return PYPTX_ERR_INTERNAL;
  }
}

// Forgets `handle`; its modules are unloaded (in every context that loaded one) once no
// launch is using it. Returns 0 when the handle was registered, 1 when it was not.
PYPTX_EXPORT int pyptx_unregister(uint64_t handle) {
  std::shared_ptr<Kernel> doomed;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    auto it = kernels().find(handle);
    if (it == kernels().end()) return 1;
    doomed = std::move(it->second);
    kernels().erase(it);
  }
  return 0;  // `doomed` is released here, outside the lock
}

// Introspection for tests and diagnostics: 0 and the parameter count and the number of
// contexts holding a loaded module when `handle` is registered, 1 when it is not.
PYPTX_EXPORT int pyptx_query(uint64_t handle, uint32_t* nparams, uint32_t* nmodules) {
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = kernels().find(handle);
  if (it == kernels().end()) return 1;
  if (nparams != nullptr) *nparams = static_cast<uint32_t>(it->second->slots.size());
  if (nmodules != nullptr) *nmodules = static_cast<uint32_t>(it->second->loaded.size());
  return 0;
}

// ------------------------------------------------------------------------------------------
// XLA typed FFI (compiled when the jaxlib headers are on the include path)
// ------------------------------------------------------------------------------------------

#ifdef PYPTX_SHIM_WITH_XLA
#include "xla/ffi/api/ffi.h"

namespace {

namespace ffi = xla::ffi;

// Attributes of every pyptx custom call, bound by name (XLA passes them sorted):
//   handle:  int64 scalar, the kernel handle's two's-complement bits (MLIR cannot build a u64
//            attribute >= 2**63, so the handle travels signed and is cast back here);
//   scalars: uint8 array (possibly empty), the packed scalar parameter bytes.
// Operands: the kernel's buffer parameters are the custom call's operands then its results,
// in order.
template <typename Binding>
auto bind_operands(Binding binding) {
  return std::move(binding)
      .RemainingArgs()
      .RemainingRets()
      .template Attr<int64_t>("handle")
      .template Attr<ffi::Span<const uint8_t>>("scalars");
}

ffi::Error collect_buffers(const ffi::RemainingArgs& args, const ffi::RemainingRets& rets,
                           std::vector<uint64_t>* out) {
  out->clear();
  out->reserve(args.size() + rets.size());
  for (size_t i = 0; i < args.size(); ++i) {
    auto buffer = args.get<ffi::AnyBuffer>(i);
    if (buffer.has_error()) return buffer.error();
    out->push_back(reinterpret_cast<uintptr_t>(buffer->untyped_data()));
  }
  for (size_t i = 0; i < rets.size(); ++i) {
    auto buffer = rets.get<ffi::AnyBuffer>(i);
    if (buffer.has_error()) return buffer.error();
    out->push_back(reinterpret_cast<uintptr_t>((*buffer)->untyped_data()));
  }
  return ffi::Error::Success();
}

ffi::Error xla_launch(CUstream stream, ffi::RemainingArgs args, ffi::RemainingRets rets,
                      int64_t handle, ffi::Span<const uint8_t> scalars) {
  thread_local std::vector<uint64_t> buffers;
  char err[1024] = {0};
  int rc = PYPTX_ERR_INTERNAL;
  // No C++ exception (out of memory) may cross the FFI boundary into XLA.
  try {
    ffi::Error collected = collect_buffers(args, rets, &buffers);
    if (collected.failure()) return collected;
    // The stream names the context; the device ordinal only matters for the special
    // streams, which XLA never passes.
    rc = launch_core(static_cast<uint64_t>(handle), stream, buffers.data(),
                     static_cast<uint32_t>(buffers.size()), scalars.begin(),
                     static_cast<uint32_t>(scalars.size()), -1, err, sizeof(err));
  } catch (const std::exception& e) {
    std::snprintf(err, sizeof(err), "pyptx_launch: %s", e.what());
  }
  switch (rc) {
    case PYPTX_OK:
      return ffi::Error::Success();
    case PYPTX_ERR_ARGUMENT:
      return ffi::Error(ffi::ErrorCode::kInvalidArgument, err);
    case PYPTX_ERR_NO_DRIVER:
      return ffi::Error(ffi::ErrorCode::kFailedPrecondition, err);
    default:
      return ffi::Error(ffi::ErrorCode::kInternal, err);
  }
}

// Test hook: decodes exactly what xla_launch decodes, without a GPU, and writes it into its
// first result (a uint8 vector): handle (8 bytes), number of operands (4), number of results
// (4), number of scalar bytes (4), the scalar bytes, then the first 4 bytes of each operand.
ffi::Error xla_probe(ffi::RemainingArgs args, ffi::RemainingRets rets, int64_t handle,
                     ffi::Span<const uint8_t> scalars) {
  std::vector<uint64_t> buffers;
  ffi::Error collected = collect_buffers(args, rets, &buffers);
  if (collected.failure()) return collected;
  if (rets.size() == 0) return ffi::Error::InvalidArgument("the probe needs one result");
  auto out = rets.get<ffi::AnyBuffer>(0);
  if (out.has_error()) return out.error();
  auto* dst = static_cast<uint8_t*>((*out)->untyped_data());
  const size_t capacity = (*out)->size_bytes();
  std::vector<uint8_t> record(8 + 4 + 4 + 4);
  const uint32_t counts[3] = {static_cast<uint32_t>(args.size()),
                              static_cast<uint32_t>(rets.size()),
                              static_cast<uint32_t>(scalars.size())};
  std::memcpy(record.data(), &handle, 8);
  std::memcpy(record.data() + 8, counts, sizeof(counts));
  record.insert(record.end(), scalars.begin(), scalars.end());
  for (size_t i = 0; i < args.size(); ++i) {
    auto arg = args.get<ffi::AnyBuffer>(i);
    uint8_t head[4] = {0, 0, 0, 0};
    if (arg->size_bytes() >= 4) std::memcpy(head, arg->untyped_data(), 4);
    record.insert(record.end(), head, head + 4);
  }
  if (record.size() > capacity) return ffi::Error::InvalidArgument("probe result too small");
  std::memset(dst, 0, capacity);
  std::memcpy(dst, record.data(), record.size());
  return ffi::Error::Success();
}

}  // namespace

#pragma GCC visibility push(default)

// Launches a registered kernel on XLA's stream. Command-buffer compatible: XLA may record it
// into a CUDA graph (the launch is a single stream-ordered cuLaunchKernelEx whose parameters,
// tensor maps included, are captured by value).
XLA_FFI_DEFINE_HANDLER_SYMBOL(PyptxXlaLaunch, xla_launch,
                              bind_operands(ffi::Ffi::Bind().Ctx<ffi::PlatformStream<CUstream>>()),
                              {ffi::Traits::kCmdBufferCompatible});

XLA_FFI_DEFINE_HANDLER_SYMBOL(PyptxXlaProbe, xla_probe, bind_operands(ffi::Ffi::Bind()));

#pragma GCC visibility pop

#endif  // PYPTX_SHIM_WITH_XLA
