// Generated PTX: /usr/local/bin/nvcc -arch=sm_90a -ptx async_copy.cu -o async_copy.ptx (CUDA 13.0, V13.0.88);
// the emulator tests (test_async_copy.py, test_tma.py) run async_copy.ptx, never compile this.
// cp.async through the CUDA pipeline primitives and cuda::memcpy_async with cuda::barrier.
#include <cuda_pipeline.h>
#include <cuda/barrier>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// Double-buffered: stage i+1 is in flight while stage i is consumed; out[i] = in[i] + in[i^1].
__global__ void pipelined_copy(const float* __restrict__ in, float* __restrict__ out, int tiles) {
  __shared__ alignas(16) float stage[2][256];
  const int t = threadIdx.x;
  __pipeline_memcpy_async(&stage[0][t], &in[t], sizeof(float));
  __pipeline_commit();
  for (int k = 0; k < tiles; ++k) {
    if (k + 1 < tiles) {
      __pipeline_memcpy_async(&stage[(k + 1) & 1][t], &in[(k + 1) * 256 + t], sizeof(float));
    }
    __pipeline_commit();
    __pipeline_wait_prior(1);
    __syncthreads();
    out[k * 256 + t] = stage[k & 1][t] + stage[k & 1][t ^ 1];
    __syncthreads();
  }
}

// 16-byte copies with a source size: the tail of the last vector is zero-filled.
__global__ void zero_fill(const int4* __restrict__ in, int4* __restrict__ out, int valid_bytes) {
  __shared__ alignas(16) int4 buf[64];
  const int t = threadIdx.x;
  int remaining = valid_bytes - t * 16;
  int src_size = remaining >= 16 ? 16 : (remaining > 0 ? remaining : 0);
  unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(&buf[t]));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n"
               :: "r"(dst), "l"(&in[t]), "r"(src_size));
  asm volatile("cp.async.commit_group;\n" ::);
  asm volatile("cp.async.wait_group 0;\n" ::);
  __syncthreads();
  out[t] = buf[63 - t];
}

// cuda::memcpy_async with a block-scoped cuda::barrier (cp.async + mbarrier completion).
__global__ void barrier_copy(const int* __restrict__ in, int* __restrict__ out) {
  __shared__ alignas(16) int buf[512];
  #pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  auto block = cg::this_thread_block();
  if (block.thread_rank() == 0) {
    init(&bar, block.size());
  }
  block.sync();
  cuda::memcpy_async(block, buf, in + blockIdx.x * 512, sizeof(buf), bar);
  bar.arrive_and_wait();
  const int t = threadIdx.x;
  out[blockIdx.x * 512 + t] = buf[511 - t] * 3;
  out[blockIdx.x * 512 + 256 + t] = buf[255 - t] * 3;
}

// Per-thread copies signalled through cp.async.mbarrier.arrive.noinc on a cuda::barrier.
__global__ void arrive_noinc(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ alignas(16) float buf[128];
  #pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  const int t = threadIdx.x;
  if (t == 0) {
    init(&bar, 2 * blockDim.x);  // each thread: one arrive from its copies, one of its own
  }
  __syncthreads();
  unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(&buf[t]));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" :: "r"(dst), "l"(&in[t]));
  unsigned mbar = static_cast<unsigned>(__cvta_generic_to_shared(&bar));
  asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];\n" :: "r"(mbar));
  bar.arrive_and_wait();
  out[t] = buf[(t + 1) % 128] - buf[t];
}
