/* A stand-in for libcuda.so.1, for testing the launch shim without a driver or a GPU.
 *
 * Test-only. The shim loads it through PYPTX_LIBCUDA. Like libcuda it exports
 * cuGetProcAddress_v2 and cuGetProcAddress, and they hand out fakes of the entry points the
 * shim resolves. Each fake has the PFN type from cudaTypedefs.h, checked by the compiler.
 * The fakes model just enough driver state to check how the shim uses the driver:
 * devices and their primary contexts, extra contexts, the current-context stack, streams,
 * modules, functions and the stream-capture mode. They record what they receive.
 * fake_cuda_record() returns the record as JSON.
 *
 * The test drives it through the fake_cuda_* functions at the end of this file:
 *   fake_cuda_reset(devices)        forget everything; `devices` devices, nothing current
 *   fake_cuda_kernel(name, sizes, n)  an entry point the loaded images contain, with its
 *                                   parameter sizes (a launch copies sizes[i] bytes of
 *                                   kernelParams[i]; other names are CUDA_ERROR_NOT_FOUND)
 *   fake_cuda_fail(name, result)    entry point `name` returns `result` and does nothing
 *                                   (0: behave again)
 *   fake_cuda_hide(name)            cuGetProcAddress does not find `name`
 *   fake_cuda_context(device)       a new (non-primary) context; returns its CUcontext
 *   fake_cuda_primary(device)       the CUcontext of a device's primary context
 *   fake_cuda_stream(ctx)           a new stream in `ctx`; returns its CUstream
 *   fake_cuda_set_current(ctx)      cuCtxSetCurrent
 *
 * A few behaviours stand in for what a test cannot see on a real driver:
 *   - cuModuleLoadData records the image's size and FNV-1a hash. The size of an ELF image
 *     comes from its headers; anything else is NUL-terminated text.
 *   - cuTensorMapReplaceAddress writes the address, little-endian, into bytes 0..8 of the
 *     128-byte map.
 *   - cuGetErrorName and cuGetErrorString know only the codes in kErrors.
 *
 * Where the real driver refuses a call, the fake returns the error it documents. Examples: an
 * unknown device or function name, a tensor-map address that is not 16-byte aligned, dynamic
 * shared memory above the function's limit, a cluster above 8 CTAs that was not allowed.
 * Where the shim also breaks a rule the driver relies on, the fake appends a line to
 * "violations". Examples: a call with no context current, a launch of a function from another
 * context, a pop with nothing pushed, a module unloaded twice or from another context.
 * Every test expects "violations" to be empty.
 *
 * The state is global. There is one context stack for the whole process, because the tests
 * launch from one thread at a time. There is no locking.
 */

#include <cuda.h>
#include <cudaTypedefs.h>

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAKE_EXPORT __attribute__((visibility("default")))

enum {
  MAX_DEVICES = 8,
  MAX_CONTEXTS = 32, /* primary contexts first, then fake_cuda_context() ones */
  MAX_STREAMS = 32,
  MAX_MODULES = 64,
  MAX_FUNCTIONS = 64,
  MAX_KERNELS = 16,
  MAX_PARAMS = 256,
  MAX_NAMED = 32,  /* failures and hidden names */
  STACK_DEPTH = 16,
  TMAP_ADDRESS_OFFSET = 0,  /* where cuTensorMapReplaceAddress writes the address (LE u64) */
  MAX_DYNAMIC_SMEM = 227 * 1024,  /* an sm_90 device's opt-in limit */
  DEFAULT_SMEM = 48 * 1024,
  PORTABLE_CLUSTER = 8,
};

struct CUctx_st {
  int device;
  unsigned long long id;
};

struct CUstream_st {
  CUcontext ctx;
};

struct CUmod_st {
  CUcontext ctx;
  size_t size;
  uint64_t hash;
  int capture_mode; /* the thread's capture mode during cuModuleLoadData */
  int loaded;
  CUcontext unloaded_in;
};

struct Kernel {
  char name[128];
  uint32_t nparams;
  uint32_t sizes[MAX_PARAMS];
};

struct CUfunc_st {
  CUmodule module;
  const struct Kernel* kernel;
  int max_dynamic_smem;
  int non_portable_cluster;
};

struct Named {
  char name[64];
  int result;
};

/* A growable string. */
struct Text {
  char* data;
  size_t size;
  size_t capacity;
};

static void text_printf(struct Text* t, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

static void text_printf(struct Text* t, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0) abort();
  if (t->size + (size_t)n + 1 > t->capacity) {
    size_t capacity = (t->size + (size_t)n + 1) * 2;
    char* data = realloc(t->data, capacity);
    if (data == NULL) abort();
    t->data = data;
    t->capacity = capacity;
  }
  va_start(ap, fmt);
  vsnprintf(t->data + t->size, (size_t)n + 1, fmt, ap);
  va_end(ap);
  t->size += (size_t)n;
}

static const char* text_of(const struct Text* t) { return t->data != NULL ? t->data : ""; }

static void text_clear(struct Text* t) {
  t->size = 0;
  if (t->data != NULL) t->data[0] = '\0';
}

static struct {
  int initialized;
  int devices;
  int ncontexts;
  struct CUctx_st contexts[MAX_CONTEXTS];
  int primary_retains[MAX_DEVICES];
  int nstreams;
  struct CUstream_st streams[MAX_STREAMS];
  int nmodules;
  struct CUmod_st modules[MAX_MODULES];
  int nfunctions;
  struct CUfunc_st functions[MAX_FUNCTIONS];
  int nkernels;
  struct Kernel kernels[MAX_KERNELS];
  int depth;
  CUcontext stack[STACK_DEPTH];
  CUstreamCaptureMode capture_mode;
  int nfailures;
  struct Named failures[MAX_NAMED];
  int nhidden;
  struct Named hidden[MAX_NAMED];
} g;

/* The record: comma-separated JSON values, emptied by fake_cuda_reset(). */
static struct Text calls;      /* strings: every entry point called, in order */
static struct Text queries;    /* objects: cuGetProcAddress lookups */
static struct Text attributes; /* objects: cuFuncSetAttribute calls that succeeded */
static struct Text launches;   /* objects: cuLaunchKernelEx calls that succeeded */
static struct Text violations; /* strings */
static struct Text record;     /* the last fake_cuda_record() */

static void separator(struct Text* t) {
  if (t->size > 0) text_printf(t, ", ");
}

static void violation(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

static void violation(const char* fmt, ...) {
  char line[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof(line), fmt, ap);
  va_end(ap);
  separator(&violations);
  text_printf(&violations, "\"%s\"", line);
}

/* Logs the call; returns the injected failure for `name`, or CUDA_SUCCESS. */
static CUresult enter(const char* name) {
  separator(&calls);
  text_printf(&calls, "\"%s\"", name);
  for (int i = 0; i < g.nfailures; ++i) {
    if (strcmp(g.failures[i].name, name) == 0) return (CUresult)g.failures[i].result;
  }
  return CUDA_SUCCESS;
}

/* Logs the call, then applies injected failures and the cuInit requirement. */
static CUresult enter_initialized(const char* name) {
  CUresult r = enter(name);
  if (r != CUDA_SUCCESS) return r;
  if (!g.initialized) {
    violation("%s called before cuInit", name);
    return CUDA_ERROR_NOT_INITIALIZED;
  }
  return CUDA_SUCCESS;
}

static int valid_context(CUcontext ctx) {
  for (int i = 0; i < g.ncontexts; ++i) {
    if (ctx == &g.contexts[i]) return 1;
  }
  return 0;
}

static int valid_stream(CUstream stream) {
  for (int i = 0; i < g.nstreams; ++i) {
    if (stream == &g.streams[i]) return 1;
  }
  return 0;
}

/* A module loaded and not yet unloaded. */
static int valid_module(CUmodule m) {
  for (int i = 0; i < g.nmodules; ++i) {
    if (m == &g.modules[i]) return m->loaded;
  }
  return 0;
}

/* A function of a loaded module. */
static int valid_function(CUfunction f) {
  for (int i = 0; i < g.nfunctions; ++i) {
    if (f == &g.functions[i]) return valid_module(f->module);
  }
  return 0;
}

static CUcontext current(void) { return g.depth > 0 ? g.stack[g.depth - 1] : NULL; }

static unsigned long long handle_of(const void* p) { return (unsigned long long)(uintptr_t)p; }

/* FNV-1a, 64-bit: the test hashes the image it registered the same way. */
static uint64_t fnv1a(const uint8_t* p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

/* The image's size as the driver finds it: an ELF64 file ends with its section (or program)
 * header table; anything else is NUL-terminated text (PTX). */
static size_t image_size(const uint8_t* image) {
  if (memcmp(image, "\x7f" "ELF", 4) != 0 || image[4] != 2) return strlen((const char*)image);
  uint64_t phoff, shoff;
  uint16_t phentsize, phnum, shentsize, shnum;
  memcpy(&phoff, image + 0x20, 8);
  memcpy(&shoff, image + 0x28, 8);
  memcpy(&phentsize, image + 0x36, 2);
  memcpy(&phnum, image + 0x38, 2);
  memcpy(&shentsize, image + 0x3a, 2);
  memcpy(&shnum, image + 0x3c, 2);
  uint64_t end = shoff + (uint64_t)shentsize * shnum;
  uint64_t pend = phoff + (uint64_t)phentsize * phnum;
  return (size_t)(end > pend ? end : pend);
}

static void text_hex(struct Text* t, const uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; ++i) text_printf(t, "%02x", p[i]);
}

/* ------------------------------------------------------------------------------------------
 * The entry points
 * ------------------------------------------------------------------------------------------ */

static const struct {
  CUresult code;
  const char* name;
  const char* text;
} kErrors[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {CUDA_ERROR_NO_BINARY_FOR_GPU, "CUDA_ERROR_NO_BINARY_FOR_GPU",
     "no kernel image is available for execution on the device"},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS",
     "an illegal memory access was encountered"},
    {CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
     "too many resources requested for launch"},
    {CUDA_ERROR_INVALID_CLUSTER_SIZE, "CUDA_ERROR_INVALID_CLUSTER_SIZE",
     "invalid cluster size"},
};

/* Like the driver: an unknown code is CUDA_ERROR_INVALID_VALUE with *pStr set to NULL. */
static CUresult describe(CUresult error, const char** pStr, int text) {
  *pStr = NULL;
  for (size_t i = 0; i < sizeof(kErrors) / sizeof(kErrors[0]); ++i) {
    if (kErrors[i].code == error) *pStr = text ? kErrors[i].text : kErrors[i].name;
  }
  return *pStr != NULL ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

static CUresult fake_cuGetErrorName(CUresult error, const char** pStr) {
  enter("cuGetErrorName");
  return describe(error, pStr, 0);
}

static CUresult fake_cuGetErrorString(CUresult error, const char** pStr) {
  enter("cuGetErrorString");
  return describe(error, pStr, 1);
}

static CUresult fake_cuInit(unsigned int flags) {
  CUresult r = enter("cuInit");
  if (r != CUDA_SUCCESS) return r;
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  g.initialized = 1;
  return CUDA_SUCCESS;
}

static CUresult fake_cuDeviceGet(CUdevice_v1* device, int ordinal) {
  CUresult r = enter_initialized("cuDeviceGet");
  if (r != CUDA_SUCCESS) return r;
  if (ordinal < 0 || ordinal >= g.devices) return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}

static CUresult fake_cuDevicePrimaryCtxRetain(CUcontext* pctx, CUdevice_v1 dev) {
  CUresult r = enter_initialized("cuDevicePrimaryCtxRetain");
  if (r != CUDA_SUCCESS) return r;
  if (dev < 0 || dev >= g.devices) return CUDA_ERROR_INVALID_DEVICE;
  g.primary_retains[dev] += 1;
  *pctx = &g.contexts[dev];
  return CUDA_SUCCESS;
}

static CUresult fake_cuCtxGetCurrent(CUcontext* pctx) {
  CUresult r = enter_initialized("cuCtxGetCurrent");
  if (r != CUDA_SUCCESS) return r;
  *pctx = current();
  return CUDA_SUCCESS;
}

static CUresult fake_cuCtxPushCurrent(CUcontext ctx) {
  CUresult r = enter_initialized("cuCtxPushCurrent");
  if (r != CUDA_SUCCESS) return r;
  if (!valid_context(ctx)) {
    violation("cuCtxPushCurrent of an invalid context 0x%llx", handle_of(ctx));
    return CUDA_ERROR_INVALID_CONTEXT;
  }
  if (g.depth == STACK_DEPTH) {
    violation("cuCtxPushCurrent: the context stack is %d deep", STACK_DEPTH);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  g.stack[g.depth++] = ctx;
  return CUDA_SUCCESS;
}

static CUresult fake_cuCtxPopCurrent(CUcontext* pctx) {
  CUresult r = enter_initialized("cuCtxPopCurrent");
  if (r != CUDA_SUCCESS) return r;
  if (g.depth == 0) {
    violation("cuCtxPopCurrent with no context current");
    return CUDA_ERROR_INVALID_CONTEXT;
  }
  CUcontext popped = g.stack[--g.depth];
  if (pctx != NULL) *pctx = popped;
  return CUDA_SUCCESS;
}

static CUresult fake_cuCtxGetDevice(CUdevice_v1* device) {
  CUresult r = enter_initialized("cuCtxGetDevice");
  if (r != CUDA_SUCCESS) return r;
  if (current() == NULL) return CUDA_ERROR_INVALID_CONTEXT;
  *device = current()->device;
  return CUDA_SUCCESS;
}

static CUresult fake_cuCtxGetId(CUcontext ctx, unsigned long long* id) {
  CUresult r = enter_initialized("cuCtxGetId");
  if (r != CUDA_SUCCESS) return r;
  if (ctx == NULL) ctx = current();
  if (!valid_context(ctx)) return CUDA_ERROR_INVALID_CONTEXT;
  *id = ctx->id;
  return CUDA_SUCCESS;
}

static CUresult fake_cuStreamGetCtx(CUstream stream, CUcontext* pctx) {
  CUresult r = enter_initialized("cuStreamGetCtx");
  if (r != CUDA_SUCCESS) return r;
  if (!valid_stream(stream)) {
    violation("cuStreamGetCtx of an unknown stream 0x%llx", handle_of(stream));
    return CUDA_ERROR_INVALID_HANDLE;
  }
  *pctx = stream->ctx;
  return CUDA_SUCCESS;
}

static CUresult fake_cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode* mode) {
  CUresult r = enter_initialized("cuThreadExchangeStreamCaptureMode");
  if (r != CUDA_SUCCESS) return r;
  CUstreamCaptureMode previous = g.capture_mode;
  g.capture_mode = *mode;
  *mode = previous;
  return CUDA_SUCCESS;
}

static CUresult fake_cuModuleLoadData(CUmodule* module, const void* image) {
  CUresult r = enter_initialized("cuModuleLoadData");
  if (r != CUDA_SUCCESS) return r;
  if (current() == NULL) {
    violation("cuModuleLoadData with no context current");
    return CUDA_ERROR_INVALID_CONTEXT;
  }
  if (image == NULL) return CUDA_ERROR_INVALID_VALUE;
  if (g.nmodules == MAX_MODULES) return CUDA_ERROR_OUT_OF_MEMORY;
  struct CUmod_st* m = &g.modules[g.nmodules++];
  const uint8_t* bytes = image;
  m->ctx = current();
  m->size = image_size(bytes);
  m->hash = fnv1a(bytes, m->size);
  m->capture_mode = (int)g.capture_mode;
  m->loaded = 1;
  m->unloaded_in = NULL;
  *module = m;
  return CUDA_SUCCESS;
}

static CUresult fake_cuModuleGetFunction(CUfunction* hfunc, CUmodule hmod, const char* name) {
  CUresult r = enter_initialized("cuModuleGetFunction");
  if (r != CUDA_SUCCESS) return r;
  if (!valid_module(hmod)) {
    violation("cuModuleGetFunction on an invalid module 0x%llx", handle_of(hmod));
    return CUDA_ERROR_INVALID_HANDLE;
  }
  const struct Kernel* kernel = NULL;
  for (int i = 0; i < g.nkernels; ++i) {
    if (strcmp(g.kernels[i].name, name) == 0) kernel = &g.kernels[i];
  }
  if (kernel == NULL) return CUDA_ERROR_NOT_FOUND;
  for (int i = 0; i < g.nfunctions; ++i) {
    if (g.functions[i].module == hmod && g.functions[i].kernel == kernel) {
      *hfunc = &g.functions[i];
      return CUDA_SUCCESS;
    }
  }
  if (g.nfunctions == MAX_FUNCTIONS) return CUDA_ERROR_OUT_OF_MEMORY;
  struct CUfunc_st* f = &g.functions[g.nfunctions++];
  f->module = hmod;
  f->kernel = kernel;
  f->max_dynamic_smem = DEFAULT_SMEM;
  f->non_portable_cluster = 0;
  *hfunc = f;
  return CUDA_SUCCESS;
}

static CUresult fake_cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib, int value) {
  CUresult r = enter_initialized("cuFuncSetAttribute");
  if (r != CUDA_SUCCESS) return r;
  if (!valid_function(hfunc)) {
    violation("cuFuncSetAttribute on an invalid function 0x%llx", handle_of(hfunc));
    return CUDA_ERROR_INVALID_HANDLE;
  }
  switch (attrib) {
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
      if (value < 0 || value > MAX_DYNAMIC_SMEM) return CUDA_ERROR_INVALID_VALUE;
      hfunc->max_dynamic_smem = value;
      break;
    case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
      if (value != 0 && value != 1) return CUDA_ERROR_INVALID_VALUE;
      hfunc->non_portable_cluster = value;
      break;
    default:
      break;
  }
  separator(&attributes);
  text_printf(&attributes,
              "{\"module\": %d, \"kernel\": \"%s\", \"attribute\": %d, \"value\": %d}",
              (int)(hfunc->module - g.modules), hfunc->kernel->name, (int)attrib, value);
  return CUDA_SUCCESS;
}

static int is_special_stream(CUstream s) {
  return s == NULL || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD;
}

static CUresult fake_cuLaunchKernelEx(const CUlaunchConfig* config, CUfunction f,
                                      void** kernelParams, void** extra) {
  CUresult r = enter_initialized("cuLaunchKernelEx");
  if (r != CUDA_SUCCESS) return r;
  if (config == NULL || !valid_function(f)) {
    violation("cuLaunchKernelEx with a null config or an invalid function 0x%llx", handle_of(f));
    return CUDA_ERROR_INVALID_HANDLE;
  }
  CUcontext ctx = f->module->ctx;
  if (current() != ctx) {
    violation("cuLaunchKernelEx of '%s' (context 0x%llx) while context 0x%llx is current",
              f->kernel->name, handle_of(ctx), handle_of(current()));
    return CUDA_ERROR_INVALID_CONTEXT;
  }
  if (!is_special_stream(config->hStream) && !valid_stream(config->hStream)) {
    violation("cuLaunchKernelEx of '%s' on an unknown stream 0x%llx", f->kernel->name,
              handle_of(config->hStream));
    return CUDA_ERROR_INVALID_HANDLE;
  }
  if (!is_special_stream(config->hStream) && config->hStream->ctx != ctx) {
    violation("cuLaunchKernelEx of '%s' (context 0x%llx) on a stream of context 0x%llx",
              f->kernel->name, handle_of(ctx), handle_of(config->hStream->ctx));
    return CUDA_ERROR_INVALID_HANDLE;
  }
  if (extra != NULL || (f->kernel->nparams > 0 && kernelParams == NULL)) {
    violation("cuLaunchKernelEx of '%s': kernelParams %s, extra %s", f->kernel->name,
              kernelParams ? "set" : "null", extra ? "set" : "null");
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (config->numAttrs > 0 && config->attrs == NULL) return CUDA_ERROR_INVALID_VALUE;
  unsigned cluster[3] = {1, 1, 1};
  for (unsigned i = 0; i < config->numAttrs; ++i) {
    if (config->attrs[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
      cluster[0] = config->attrs[i].value.clusterDim.x;
      cluster[1] = config->attrs[i].value.clusterDim.y;
      cluster[2] = config->attrs[i].value.clusterDim.z;
    }
  }
  const unsigned grid[3] = {config->gridDimX, config->gridDimY, config->gridDimZ};
  const unsigned block[3] = {config->blockDimX, config->blockDimY, config->blockDimZ};
  for (int i = 0; i < 3; ++i) {
    if (grid[i] == 0 || block[i] == 0) return CUDA_ERROR_INVALID_VALUE;
    if (cluster[i] == 0 || grid[i] % cluster[i] != 0) return CUDA_ERROR_INVALID_CLUSTER_SIZE;
  }
  if ((unsigned long long)cluster[0] * cluster[1] * cluster[2] > PORTABLE_CLUSTER &&
      !f->non_portable_cluster) {
    return CUDA_ERROR_INVALID_CLUSTER_SIZE;
  }
  if (config->sharedMemBytes > (unsigned)f->max_dynamic_smem) return CUDA_ERROR_INVALID_VALUE;

  struct Text* t = &launches;
  separator(t);
  text_printf(t,
              "{\"kernel\": \"%s\", \"module\": %d, \"context\": %llu, \"grid\": [%u, %u, %u], "
              "\"block\": [%u, %u, %u], \"smem\": %u, \"stream\": %llu, \"capture_mode\": %d, "
              "\"attrs\": [",
              f->kernel->name, (int)(f->module - g.modules), handle_of(ctx), grid[0], grid[1],
              grid[2], block[0], block[1], block[2], config->sharedMemBytes,
              handle_of(config->hStream), (int)g.capture_mode);
  for (unsigned i = 0; i < config->numAttrs; ++i) {
    const CUlaunchAttribute* a = &config->attrs[i];
    text_printf(t, "%s{\"id\": %d", i ? ", " : "", (int)a->id);
    if (a->id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
      text_printf(t, ", \"cluster\": [%u, %u, %u]", a->value.clusterDim.x, a->value.clusterDim.y,
                  a->value.clusterDim.z);
    }
    text_printf(t, "}");
  }
  text_printf(t, "], \"params\": [");
  for (uint32_t i = 0; i < f->kernel->nparams; ++i) {
    text_printf(t, "%s{\"address\": %llu, \"bytes\": \"", i ? ", " : "",
                handle_of(kernelParams[i]));
    text_hex(t, kernelParams[i], f->kernel->sizes[i]);
    text_printf(t, "\"}");
  }
  text_printf(t, "]}");
  return CUDA_SUCCESS;
}

static CUresult fake_cuTensorMapReplaceAddress(CUtensorMap* tensorMap, void* globalAddress) {
  CUresult r = enter_initialized("cuTensorMapReplaceAddress");
  if (r != CUDA_SUCCESS) return r;
  if ((uintptr_t)tensorMap % 64 != 0) {
    violation("cuTensorMapReplaceAddress of a map at 0x%llx, not 64-byte aligned",
              handle_of(tensorMap));
    return CUDA_ERROR_INVALID_VALUE;
  }
  if ((uintptr_t)globalAddress % 16 != 0) return CUDA_ERROR_INVALID_VALUE;
  uint64_t address = (uint64_t)(uintptr_t)globalAddress;
  memcpy((uint8_t*)tensorMap + TMAP_ADDRESS_OFFSET, &address, sizeof(address));
  return CUDA_SUCCESS;
}

static CUresult fake_cuModuleUnload(CUmodule hmod) {
  CUresult r = enter_initialized("cuModuleUnload");
  if (r != CUDA_SUCCESS) return r;
  if (!valid_module(hmod)) {
    violation("cuModuleUnload of an invalid or already unloaded module 0x%llx", handle_of(hmod));
    return CUDA_ERROR_INVALID_HANDLE;
  }
  if (current() != hmod->ctx) {
    violation("cuModuleUnload of module %d (context 0x%llx) while context 0x%llx is current",
              (int)(hmod - g.modules), handle_of(hmod->ctx), handle_of(current()));
  }
  hmod->loaded = 0;
  hmod->unloaded_in = current();
  return CUDA_SUCCESS;
}

/* ------------------------------------------------------------------------------------------
 * cuGetProcAddress
 * ------------------------------------------------------------------------------------------ */

/* One entry point: the fake, the CUDA version that introduced its signature, and the version
 * that replaced it with another signature (0: none), from cudaTypedefs.h. A lookup at a version
 * in [since, until) finds the fake; any other finds nothing, so a shim asking for an ABI the
 * fake does not implement fails to load the driver. */
struct Entry {
  const char* name;
  void* fn;
  int since;
  int until;
};

#define ENTRIES(X)                             \
  X(cuGetErrorName, 6000, 0)                   \
  X(cuGetErrorString, 6000, 0)                 \
  X(cuInit, 2000, 0)                           \
  X(cuDeviceGet, 2000, 0)                      \
  X(cuDevicePrimaryCtxRetain, 7000, 0)         \
  X(cuCtxGetCurrent, 4000, 0)                  \
  X(cuCtxPushCurrent, 4000, 0)                 \
  X(cuCtxPopCurrent, 4000, 0)                  \
  X(cuCtxGetDevice, 2000, 13000)               \
  X(cuCtxGetId, 12000, 0)                      \
  X(cuStreamGetCtx, 9020, 12050)               \
  X(cuThreadExchangeStreamCaptureMode, 10010, 0) \
  X(cuModuleLoadData, 2000, 0)                 \
  X(cuModuleGetFunction, 2000, 0)              \
  X(cuModuleUnload, 2000, 0)                   \
  X(cuFuncSetAttribute, 9000, 0)               \
  X(cuLaunchKernelEx, 11060, 0)                \
  X(cuTensorMapReplaceAddress, 12000, 0)

/* Each fake has exactly the PFN type of its entry's version. */
#define CHECK_SIGNATURE(name, version, until)                                              \
  _Static_assert(__builtin_types_compatible_p(__typeof__(&fake_##name),                    \
                                              PFN_##name##_v##version),                    \
                 "fake_" #name " does not have the type PFN_" #name "_v" #version);
ENTRIES(CHECK_SIGNATURE)
#undef CHECK_SIGNATURE

#define ENTRY(name, version, until) {#name, (void*)fake_##name, version, until},
static const struct Entry kEntries[] = {ENTRIES(ENTRY)};
#undef ENTRY

static CUdriverProcAddressQueryResult lookup(const char* symbol, void** pfn, int version,
                                             cuuint64_t flags, int api) {
  *pfn = NULL;
  separator(&queries);
  text_printf(&queries, "{\"symbol\": \"%s\", \"version\": %d, \"flags\": %llu, \"api\": %d}",
              symbol, version, (unsigned long long)flags, api);
  for (int i = 0; i < g.nhidden; ++i) {
    if (strcmp(g.hidden[i].name, symbol) == 0) return CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  }
  for (size_t i = 0; i < sizeof(kEntries) / sizeof(kEntries[0]); ++i) {
    const struct Entry* e = &kEntries[i];
    if (strcmp(e->name, symbol) != 0) continue;
    if (version < e->since) return CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT;
    if (e->until != 0 && version >= e->until) {
      violation("%s requested at version %d, whose signature the fake does not implement",
                symbol, version);
      return CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    }
    *pfn = e->fn;
    return CU_GET_PROC_ADDRESS_SUCCESS;
  }
  return CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
}

/* Built with -DFAKE_CUDA_NO_PROC_ADDRESS_V2 the fake is an older driver, exporting only the
 * CUDA 11.3 cuGetProcAddress. */
#ifndef FAKE_CUDA_NO_PROC_ADDRESS_V2
FAKE_EXPORT CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int cudaVersion,
                                         cuuint64_t flags,
                                         CUdriverProcAddressQueryResult* symbolStatus) {
  if (symbol == NULL || pfn == NULL) return CUDA_ERROR_INVALID_VALUE;
  CUdriverProcAddressQueryResult status = lookup(symbol, pfn, cudaVersion, flags, 2);
  if (symbolStatus != NULL) *symbolStatus = status;
  return status == CU_GET_PROC_ADDRESS_SUCCESS ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}
#endif

/* cuda.h maps cuGetProcAddress to cuGetProcAddress_v2; libcuda also exports the old ABI. */
#undef cuGetProcAddress
FAKE_EXPORT CUresult cuGetProcAddress(const char* symbol, void** pfn, int cudaVersion,
                                      cuuint64_t flags) {
  if (symbol == NULL || pfn == NULL) return CUDA_ERROR_INVALID_VALUE;
  CUdriverProcAddressQueryResult status = lookup(symbol, pfn, cudaVersion, flags, 1);
  return status == CU_GET_PROC_ADDRESS_SUCCESS ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}

/* ------------------------------------------------------------------------------------------
 * Test controls
 * ------------------------------------------------------------------------------------------ */

static void add_named(struct Named* list, int* n, const char* name, int result) {
  for (int i = 0; i < *n; ++i) {
    if (strcmp(list[i].name, name) == 0) {
      list[i].result = result;
      return;
    }
  }
  if (*n == MAX_NAMED || strlen(name) >= sizeof(list[0].name)) abort();
  snprintf(list[*n].name, sizeof(list[0].name), "%s", name);
  list[*n].result = result;
  *n += 1;
}

static struct CUctx_st* new_context(int device) {
  if (g.ncontexts == MAX_CONTEXTS) abort();
  struct CUctx_st* c = &g.contexts[g.ncontexts++];
  c->device = device;
  c->id = 1000 + (unsigned long long)g.ncontexts; /* unlike any handle */
  return c;
}

FAKE_EXPORT void fake_cuda_reset(int devices) {
  if (devices < 0 || devices > MAX_DEVICES) abort();
  memset(&g, 0, sizeof(g));
  text_clear(&calls);
  text_clear(&queries);
  text_clear(&attributes);
  text_clear(&launches);
  text_clear(&violations);
  g.devices = devices;
  g.capture_mode = CU_STREAM_CAPTURE_MODE_GLOBAL;
  for (int d = 0; d < devices; ++d) new_context(d); /* the primary contexts */
}

FAKE_EXPORT void fake_cuda_kernel(const char* name, const uint32_t* sizes, uint32_t n) {
  if (g.nkernels == MAX_KERNELS || n > MAX_PARAMS || strlen(name) >= sizeof(g.kernels[0].name)) {
    abort();
  }
  struct Kernel* k = &g.kernels[g.nkernels++];
  snprintf(k->name, sizeof(k->name), "%s", name);
  k->nparams = n;
  for (uint32_t i = 0; i < n; ++i) k->sizes[i] = sizes[i];
}

FAKE_EXPORT void fake_cuda_fail(const char* name, int result) {
  add_named(g.failures, &g.nfailures, name, result);
}

FAKE_EXPORT void fake_cuda_hide(const char* name) { add_named(g.hidden, &g.nhidden, name, 1); }

FAKE_EXPORT uint64_t fake_cuda_context(int device) {
  if (device < 0 || device >= g.devices) abort();
  return handle_of(new_context(device));
}

FAKE_EXPORT uint64_t fake_cuda_primary(int device) {
  if (device < 0 || device >= g.devices) abort();
  return handle_of(&g.contexts[device]);
}

FAKE_EXPORT uint64_t fake_cuda_stream(uint64_t ctx) {
  if (!valid_context((CUcontext)(uintptr_t)ctx) || g.nstreams == MAX_STREAMS) abort();
  g.streams[g.nstreams].ctx = (CUcontext)(uintptr_t)ctx;
  return handle_of(&g.streams[g.nstreams++]);
}

/* cuCtxSetCurrent: replaces the top of the stack; 0 pops it. */
FAKE_EXPORT void fake_cuda_set_current(uint64_t ctx) {
  CUcontext c = (CUcontext)(uintptr_t)ctx;
  if (c == NULL) {
    if (g.depth > 0) g.depth -= 1;
    return;
  }
  if (!valid_context(c)) abort();
  if (g.depth == 0) g.depth = 1;
  g.stack[g.depth - 1] = c;
}

FAKE_EXPORT const char* fake_cuda_record(void) {
  struct Text* t = &record;
  text_clear(t);
  text_printf(t, "{\"initialized\": %s, \"capture_mode\": %d, \"current\": [",
              g.initialized ? "true" : "false", (int)g.capture_mode);
  for (int i = 0; i < g.depth; ++i) text_printf(t, "%s%llu", i ? ", " : "", handle_of(g.stack[i]));
  text_printf(t, "], \"primary_retains\": [");
  for (int d = 0; d < g.devices; ++d) text_printf(t, "%s%d", d ? ", " : "", g.primary_retains[d]);
  text_printf(t, "], \"modules\": [");
  for (int i = 0; i < g.nmodules; ++i) {
    const struct CUmod_st* m = &g.modules[i];
    text_printf(t,
                "%s{\"context\": %llu, \"size\": %zu, \"hash\": %llu, \"capture_mode\": %d, "
                "\"loaded\": %s, \"unloaded_in\": %llu}",
                i ? ", " : "", handle_of(m->ctx), m->size, (unsigned long long)m->hash,
                m->capture_mode, m->loaded ? "true" : "false", handle_of(m->unloaded_in));
  }
  text_printf(t, "], \"calls\": [%s], \"queries\": [%s], \"attributes\": [%s], ",
              text_of(&calls), text_of(&queries), text_of(&attributes));
  text_printf(t, "\"launches\": [%s], \"violations\": [%s]}", text_of(&launches),
              text_of(&violations));
  return t->data;
}
