// nvcuda::wmma kernels for pyptx-emu's tests (tests/test_matrix.py).
//
// Generated PTX: wmma_kernels.ptx, by
//     nvcc -arch=sm_80 -ptx wmma_kernels.cu -o wmma_kernels.ptx      (CUDA 13.0)
// Regenerate after editing; the tests never compile.
//
// One 16x16 output tile per warp: tile = blockIdx.x * (blockDim.x / 32) + warp. A is
// 16 x K row-major, B is K x 16 column-major (ldm K), C and D are 16 x 16 row-major; each
// kernel computes D = A * B + C through load_matrix_sync / mma_sync / store_matrix_sync,
// so the result does not depend on how the fragments are laid out.
#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
using namespace nvcuda;

__device__ __forceinline__ unsigned tile_id() { return blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; }

__global__ void wmma_f16_f32(const half* A, const half* B, const float* C, float* D) {
  unsigned t = tile_id();
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
  wmma::load_matrix_sync(a, A + t * 256, 16);
  wmma::load_matrix_sync(b, B + t * 256, 16);
  wmma::load_matrix_sync(c, C + t * 256, 16, wmma::mem_row_major);
  wmma::mma_sync(c, a, b, c);
  wmma::store_matrix_sync(D + t * 256, c, 16, wmma::mem_row_major);
}

// f16 accumulators; C is loaded column-major and D stored column-major (ldm 16).
__global__ void wmma_f16_f16(const half* A, const half* B, const half* C, half* D) {
  unsigned t = tile_id();
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, half> c;
  wmma::load_matrix_sync(a, A + t * 256, 16);
  wmma::load_matrix_sync(b, B + t * 256, 16);
  wmma::load_matrix_sync(c, C + t * 256, 16, wmma::mem_col_major);
  wmma::mma_sync(c, a, b, c);
  wmma::store_matrix_sync(D + t * 256, c, 16, wmma::mem_col_major);
}

__global__ void wmma_bf16(const __nv_bfloat16* A, const __nv_bfloat16* B, const float* C, float* D) {
  unsigned t = tile_id();
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
  wmma::load_matrix_sync(a, A + t * 256, 16);
  wmma::load_matrix_sync(b, B + t * 256, 16);
  wmma::load_matrix_sync(c, C + t * 256, 16, wmma::mem_row_major);
  wmma::mma_sync(c, a, b, c);
  wmma::store_matrix_sync(D + t * 256, c, 16, wmma::mem_row_major);
}

// tf32 m16n16k8. The inputs are tf32 values already, so the fragments skip the
// __float_to_tf32 conversion the CUDA guide asks for (the test feeds extra low mantissa bits
// to check that the tensor core ignores them).
__global__ void wmma_tf32(const float* A, const float* B, const float* C, float* D) {
  unsigned t = tile_id();
  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> c;
  wmma::load_matrix_sync(a, A + t * 128, 8);
  wmma::load_matrix_sync(b, B + t * 128, 8);
  wmma::load_matrix_sync(c, C + t * 256, 16, wmma::mem_row_major);
  wmma::mma_sync(c, a, b, c);
  wmma::store_matrix_sync(D + t * 256, c, 16, wmma::mem_row_major);
}

__global__ void wmma_s8(const signed char* A, const signed char* B, const int* C, int* D) {
  unsigned t = tile_id();
  wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::col_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, int> c;
  wmma::load_matrix_sync(a, A + t * 256, 16);
  wmma::load_matrix_sync(b, B + t * 256, 16);
  wmma::load_matrix_sync(c, C + t * 256, 16, wmma::mem_row_major);
  wmma::mma_sync(c, a, b, c);
  wmma::store_matrix_sync(D + t * 256, c, 16, wmma::mem_row_major);
}

// Scales every accumulator element in registers (a layout-independent use of fragment.x).
__global__ void wmma_scaled(const half* A, const half* B, float* D) {
  unsigned t = tile_id();
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
  wmma::fill_fragment(c, 0.0f);
  wmma::load_matrix_sync(a, A + t * 256, 16);
  wmma::load_matrix_sync(b, B + t * 256, 16);
  wmma::mma_sync(c, a, b, c);
  for (int i = 0; i < c.num_elements; ++i) c.x[i] = c.x[i] + c.x[i];
  wmma::store_matrix_sync(D + t * 256, c, 16, wmma::mem_row_major);
}
