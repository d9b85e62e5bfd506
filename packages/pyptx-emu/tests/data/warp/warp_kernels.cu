// Warp-level and atomic kernels whose PTX (warp_kernels.ptx, next to this file) the emulator's
// tests run against numpy references (tests/test_warp.py, tests/test_atomic.py).
//
// Generated with CUDA 13.0:
//   nvcc -arch=sm_90a -ptx warp_kernels.cu -o warp_kernels.ptx
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#define FULL 0xffffffffu

// Butterfly sum of one float per lane; every lane ends with the warp's sum.
extern "C" __global__ void warp_sum(const float* x, float* out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float v = x[t];
  for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(FULL, v, off);
  out[t] = v;
}

// The four shuffles with a sub-warp width (a power of two up to 32).
extern "C" __global__ void shuffles(const int* x, int* out, int width) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x % 32;
  int v = x[t];
  out[4 * t + 0] = __shfl_sync(FULL, v, (lane * 5 + 3) % 32, width);
  out[4 * t + 1] = __shfl_up_sync(FULL, v, 3, width);
  out[4 * t + 2] = __shfl_down_sync(FULL, v, 5, width);
  out[4 * t + 3] = __shfl_xor_sync(FULL, v, 6, width);
}

// Votes, matches and reductions over the whole warp, then over the lanes with lane % 3 == 0.
extern "C" __global__ void votes(const int* x, unsigned* out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x % 32;
  int v = x[t];
  unsigned* o = out + 16 * t;
  o[0] = __ballot_sync(FULL, v > 0);
  o[1] = __any_sync(FULL, v > 100);
  o[2] = __all_sync(FULL, v > -100);
  o[3] = __match_any_sync(FULL, v);
  int pred;
  o[4] = __match_all_sync(FULL, v, &pred);
  o[5] = pred;
  o[6] = __reduce_add_sync(FULL, (unsigned)v);
  o[7] = (unsigned)__reduce_min_sync(FULL, v);
  o[8] = (unsigned)__reduce_max_sync(FULL, v);
  o[9] = __reduce_min_sync(FULL, (unsigned)v);
  o[10] = __reduce_and_sync(FULL, (unsigned)v);
  o[11] = __reduce_or_sync(FULL, (unsigned)v);
  o[12] = __reduce_xor_sync(FULL, (unsigned)v);
  if (lane % 3 == 0) {
    unsigned mask = __activemask();
    o[13] = mask;
    o[14] = __ballot_sync(mask, v > 0);
    o[15] = __reduce_add_sync(mask, (unsigned)v);
  }
}

// Atomics on global and shared memory. counters[0..7] and the other arrays start as given by
// the test; each thread records the old values it saw.
extern "C" __global__ void atomics(int* counters, unsigned long long* cas, float* fsum, double* dsum,
                                   __half2* h2, __nv_bfloat162* b2, unsigned* old, int* hist) {
  __shared__ int s_hist[8];
  __shared__ int s_count;
  if (threadIdx.x < 8) s_hist[threadIdx.x] = 0;
  if (threadIdx.x == 0) s_count = 0;
  __syncthreads();
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned* o = old + 8 * t;
  o[0] = atomicAdd(&counters[0], t);
  o[1] = atomicInc((unsigned*)&counters[1], 5u);
  o[2] = atomicDec((unsigned*)&counters[2], 3u);
  o[3] = atomicMax(&counters[3], (t * 37) % 101 - 50);
  o[4] = atomicMin(&counters[4], (t * 37) % 101 - 50);
  o[5] = atomicOr(&counters[5], 1 << (t % 32));
  o[6] = atomicExch(&counters[6], t);
  o[7] = (unsigned)atomicCAS(cas, (unsigned long long)t, (unsigned long long)t + 1);
  atomicXor(&counters[7], t * 0x01010101);
  atomicAdd(fsum, 0.25f * t);
  atomicAdd(dsum, 0.125 * t);
  atomicAdd(h2, __halves2half2(__float2half(1.0f), __float2half(0.5f * (t % 4))));
  atomicAdd(b2, __floats2bfloat162_rn(2.0f, -0.25f * (t % 8)));
  atomicAdd(&s_hist[(t * 7) % 8], 1);
  atomicAdd(&s_count, 1);
  __syncthreads();
  if (threadIdx.x < 8) atomicAdd(&hist[threadIdx.x], s_hist[threadIdx.x]);
  if (threadIdx.x == 0) atomicAdd(&hist[8], s_count);
}
