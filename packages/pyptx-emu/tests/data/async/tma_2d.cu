// Generated PTX: /usr/local/bin/nvcc -arch=sm_90a -ptx tma_2d.cu -o tma_2d.ptx (CUDA 13.0, V13.0.88);
// the emulator tests (test_async_copy.py, test_tma.py) run tma_2d.ptx, never compile this.
// TMA 2D tile round trip (CUDA programming guide, "Using TMA to transfer multi-dimensional
// arrays"): load a box with cp.async.bulk.tensor into shared memory, signal a cuda::barrier
// with the byte count, add threadIdx.x to row 0, store the box back with a TMA store.
#include <cuda.h>
#include <cuda/barrier>
#include <cuda/ptx>
using barrier = cuda::barrier<cuda::thread_scope_block>;
namespace cde = cuda::device::experimental;

constexpr int SMEM_H = 8;
constexpr int SMEM_W = 32;

__global__ void tma_roundtrip(const __grid_constant__ CUtensorMap tensor_map, int x, int y) {
  __shared__ alignas(128) int smem_buffer[SMEM_H][SMEM_W];
  #pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ barrier bar;
  if (threadIdx.x == 0) {
    init(&bar, blockDim.x);
    cde::fence_proxy_async_shared_cta();
  }
  __syncthreads();
  barrier::arrival_token token;
  if (threadIdx.x == 0) {
    cde::cp_async_bulk_tensor_2d_global_to_shared(&smem_buffer, &tensor_map, x, y, bar);
    token = cuda::device::barrier_arrive_tx(bar, 1, sizeof(smem_buffer));
  } else {
    token = bar.arrive();
  }
  bar.wait(std::move(token));
  smem_buffer[0][threadIdx.x] += threadIdx.x;
  cde::fence_proxy_async_shared_cta();
  __syncthreads();
  if (threadIdx.x == 0) {
    cde::cp_async_bulk_tensor_2d_shared_to_global(&tensor_map, x, y, &smem_buffer);
    cde::cp_async_bulk_commit_group();
    cde::cp_async_bulk_wait_group_read<0>();
  }
  if (threadIdx.x == 0) {
    (&bar)->~barrier();
  }
}

// The guide's 128-byte swizzle example: an 8x8 matrix of int4 loaded swizzled, transposed
// in shared memory with the swizzled indices, stored back (TMA un-swizzles).
__global__ void tma_swizzle_transpose(const __grid_constant__ CUtensorMap tensor_map) {
  __shared__ alignas(1024) int4 smem_buffer[8][8];
  __shared__ alignas(1024) int4 smem_buffer_tr[8][8];
  #pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ barrier bar;
  if (threadIdx.x == 0) {
    init(&bar, blockDim.x);
    cde::fence_proxy_async_shared_cta();
  }
  __syncthreads();
  barrier::arrival_token token;
  if (threadIdx.x == 0) {
    cde::cp_async_bulk_tensor_2d_global_to_shared(&smem_buffer, &tensor_map, 0, 0, bar);
    token = cuda::device::barrier_arrive_tx(bar, 1, sizeof(smem_buffer));
  } else {
    token = bar.arrive();
  }
  bar.wait(std::move(token));
  for (int sidx_j = threadIdx.x; sidx_j < 8; sidx_j += blockDim.x) {
    for (int sidx_i = 0; sidx_i < 8; ++sidx_i) {
      const int swiz_j_idx = (sidx_i % 8) ^ sidx_j;
      const int swiz_i_idx_tr = (sidx_j % 8) ^ sidx_i;
      smem_buffer_tr[sidx_j][swiz_i_idx_tr] = smem_buffer[sidx_i][swiz_j_idx];
    }
  }
  cde::fence_proxy_async_shared_cta();
  __syncthreads();
  if (threadIdx.x == 0) {
    cde::cp_async_bulk_tensor_2d_shared_to_global(&tensor_map, 0, 0, &smem_buffer_tr);
    cde::cp_async_bulk_commit_group();
    cde::cp_async_bulk_wait_group_read<0>();
  }
  if (threadIdx.x == 0) {
    (&bar)->~barrier();
  }
}
