// Warp-level matrix kernels for pyptx-emu's tests (tests/test_matrix.py).
//
// Generated PTX: mma_kernels.ptx, by
//     nvcc -arch=sm_90a -ptx mma_kernels.cu -o mma_kernels.ptx      (CUDA 13.0)
// Regenerate after editing; the tests never compile.
//
// Every kernel computes one tile per warp: tile = blockIdx.x * (blockDim.x / 32) + warp.
// Matrices are dense in global memory, tile after tile: A is M x K row-major, B is given
// transposed (N x K row-major, i.e. K x N column-major) unless the name says "brow"
// (K x N row-major), C and D are M x N row-major. Fragments are filled either by ldmatrix
// from shared memory or element by element with the PTX ISA's fragment formulas; the
// expected result is always plain D = A * B + C on the matrices in memory.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cstdint>

__device__ __forceinline__ unsigned lane_id() { return threadIdx.x & 31; }
__device__ __forceinline__ unsigned tile_id() { return blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; }
__device__ __forceinline__ uint32_t smem(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// C/D fragment of an m16n8 accumulator: element i at row g + 8*(i/2), column 2t + i%2.
__device__ __forceinline__ void acc_index(int i, int& row, int& col) {
  int lane = lane_id();
  row = (lane >> 2) + 8 * (i >> 1);
  col = 2 * (lane & 3) + (i & 1);
}

// f16 m16n8k16, fragments by ldmatrix (.x4 for A, .x2 for B^T), f32 accumulators.
__global__ void mma_f16_ldmatrix(const half* A, const half* Bt, const float* C, float* D) {
  __shared__ __align__(16) half sA[4][16 * 16];
  __shared__ __align__(16) half sB[4][8 * 16];
  unsigned lane = lane_id(), w = threadIdx.x / 32, tile = tile_id();
  for (int i = lane; i < 256; i += 32) sA[w][i] = A[tile * 256 + i];
  for (int i = lane; i < 128; i += 32) sB[w][i] = Bt[tile * 128 + i];
  __syncwarp();
  uint32_t a[4], b[2];
  float c[4], d[4];
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3])
               : "r"(smem(&sA[w][(lane % 16) * 16 + (lane / 16) * 8])));
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];"
               : "=r"(b[0]), "=r"(b[1])
               : "r"(smem(&sB[w][(lane % 8) * 16 + ((lane / 8) % 2) * 8])));
  for (int i = 0; i < 4; ++i) { int r, k; acc_index(i, r, k); c[i] = C[tile * 128 + r * 8 + k]; }
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7},"
               " {%8, %9}, {%10, %11, %12, %13};"
               : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
                 "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
  for (int i = 0; i < 4; ++i) { int r, k; acc_index(i, r, k); D[tile * 128 + r * 8 + k] = d[i]; }
}

// bf16 m16n8k16 with B row-major (K x N) loaded by ldmatrix.trans, f32 accumulators.
__global__ void mma_bf16_brow(const __nv_bfloat16* A, const __nv_bfloat16* B, const float* C, float* D) {
  __shared__ __align__(16) __nv_bfloat16 sA[4][16 * 16];
  __shared__ __align__(16) __nv_bfloat16 sB[4][16 * 8];
  unsigned lane = lane_id(), w = threadIdx.x / 32, tile = tile_id();
  for (int i = lane; i < 256; i += 32) sA[w][i] = A[tile * 256 + i];
  for (int i = lane; i < 128; i += 32) sB[w][i] = B[tile * 128 + i];
  __syncwarp();
  uint32_t a[4], b[2];
  float c[4], d[4];
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3])
               : "r"(smem(&sA[w][(lane % 16) * 16 + (lane / 16) * 8])));
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
               : "=r"(b[0]), "=r"(b[1])
               : "r"(smem(&sB[w][(lane % 16) * 8])));
  for (int i = 0; i < 4; ++i) { int r, k; acc_index(i, r, k); c[i] = C[tile * 128 + r * 8 + k]; }
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7},"
               " {%8, %9}, {%10, %11, %12, %13};"
               : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
                 "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
  for (int i = 0; i < 4; ++i) { int r, k; acc_index(i, r, k); D[tile * 128 + r * 8 + k] = d[i]; }
}

// f16 m16n8k8 with f16 accumulators (C, D as f16x2), fragments by formula.
__global__ void mma_f16_k8_f16acc(const half* A, const half* Bt, const half* C, half* D) {
  unsigned lane = lane_id(), tile = tile_id(), g = lane >> 2, t = lane & 3;
  const half* a_ = A + tile * 128;   // 16 x 8
  const half* b_ = Bt + tile * 64;   // 8 x 8 (n, k)
  uint32_t a[2], b, c[2], d[2];
  for (int r = 0; r < 2; ++r) a[r] = *reinterpret_cast<const uint32_t*>(&a_[(g + 8 * r) * 8 + 2 * t]);
  b = *reinterpret_cast<const uint32_t*>(&b_[g * 8 + 2 * t]);
  for (int r = 0; r < 2; ++r) c[r] = *reinterpret_cast<const uint32_t*>(&C[tile * 128 + (g + 8 * r) * 8 + 2 * t]);
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%0, %1}, {%2, %3}, {%4}, {%5, %6};"
               : "=r"(d[0]), "=r"(d[1]) : "r"(a[0]), "r"(a[1]), "r"(b), "r"(c[0]), "r"(c[1]));
  for (int r = 0; r < 2; ++r) *reinterpret_cast<uint32_t*>(&D[tile * 128 + (g + 8 * r) * 8 + 2 * t]) = d[r];
}

// tf32 m16n8k8: A 16 x 8, B^T 8 x 8, fragments by formula.
__global__ void mma_tf32_k8(const float* A, const float* Bt, const float* C, float* D) {
  unsigned lane = lane_id(), tile = tile_id(), g = lane >> 2, t = lane & 3;
  uint32_t a[4], b[2];
  float c[4], d[4];
  for (int i = 0; i < 4; ++i)
    a[i] = __float_as_uint(A[tile * 128 + (g + 8 * (i & 1)) * 8 + t + 4 * (i >> 1)]);
  for (int i = 0; i < 2; ++i) b[i] = __float_as_uint(Bt[tile * 64 + g * 8 + t + 4 * i]);
  for (int i = 0; i < 4; ++i) { int r, k; acc_index(i, r, k); c[i] = C[tile * 128 + r * 8 + k]; }
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7},"
               " {%8, %9}, {%10, %11, %12, %13};"
               : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
                 "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
  for (int i = 0; i < 4; ++i) { int r, k; acc_index(i, r, k); D[tile * 128 + r * 8 + k] = d[i]; }
}

// s8 x u8 m16n8k32 with .satfinite: A 16 x 32 (s8), B^T 8 x 32 (u8), s32 accumulators.
// (The byte matrices are passed as 32-bit words, four bytes each, little-endian.)
__global__ void mma_s8u8_satfinite(const uint32_t* A, const uint32_t* Bt, const int* C, int* D) {
  unsigned lane = lane_id(), tile = tile_id(), g = lane >> 2, t = lane & 3;
  uint32_t a[4], b[2];
  int c[4], d[4];
  for (unsigned r = 0; r < 4; ++r) a[r] = A[tile * 128 + (g + 8 * (r & 1)) * 8 + 4 * (r >> 1) + t];
  for (unsigned r = 0; r < 2; ++r) b[r] = Bt[tile * 64 + g * 8 + 4 * r + t];
  for (int i = 0; i < 4; ++i) { int r, k; acc_index(i, r, k); c[i] = C[tile * 128 + r * 8 + k]; }
  asm volatile("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.u8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7},"
               " {%8, %9}, {%10, %11, %12, %13};"
               : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
                 "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
  for (int i = 0; i < 4; ++i) { int r, k; acc_index(i, r, k); D[tile * 128 + r * 8 + k] = d[i]; }
}

// s4 m16n8k64: A 16 x 64 and B^T 8 x 64 of 4-bit elements, eight per 32-bit word, lowest
// bits first.
__global__ void mma_s4(const uint32_t* A, const uint32_t* Bt, const int* C, int* D) {
  unsigned lane = lane_id(), tile = tile_id(), g = lane >> 2, t = lane & 3;
  uint32_t a[4], b[2];
  int c[4], d[4];
  for (unsigned r = 0; r < 4; ++r) a[r] = A[tile * 128 + (g + 8 * (r & 1)) * 8 + 4 * (r >> 1) + t];
  for (unsigned r = 0; r < 2; ++r) b[r] = Bt[tile * 64 + g * 8 + 4 * r + t];
  for (int i = 0; i < 4; ++i) { int r, k; acc_index(i, r, k); c[i] = C[tile * 128 + r * 8 + k]; }
  asm volatile("mma.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7},"
               " {%8, %9}, {%10, %11, %12, %13};"
               : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
                 "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
  for (int i = 0; i < 4; ++i) { int r, k; acc_index(i, r, k); D[tile * 128 + r * 8 + k] = d[i]; }
}

// b1 m16n8k256 xor.popc: A 16 x 256 and B^T 8 x 256 bits, bit k of a row at bit k % 32 of word k / 32.
__global__ void mma_b1_xor(const uint32_t* A, const uint32_t* Bt, const int* C, int* D) {
  unsigned lane = lane_id(), tile = tile_id(), g = lane >> 2, t = lane & 3;
  uint32_t a[4], b[2];
  int c[4], d[4];
  for (int r = 0; r < 4; ++r) a[r] = A[tile * 128 + (g + 8 * (r & 1)) * 8 + 4 * (r >> 1) + t];
  for (int r = 0; r < 2; ++r) b[r] = Bt[tile * 64 + g * 8 + 4 * r + t];
  for (int i = 0; i < 4; ++i) { int r, k; acc_index(i, r, k); c[i] = C[tile * 128 + r * 8 + k]; }
  asm volatile("mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.xor.popc {%0, %1, %2, %3}, {%4, %5, %6, %7},"
               " {%8, %9}, {%10, %11, %12, %13};"
               : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
                 "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
  for (int i = 0; i < 4; ++i) { int r, k; acc_index(i, r, k); D[tile * 128 + r * 8 + k] = d[i]; }
}

// f64 m16n8k16 (sm_90): A 16 x 16, B^T 8 x 16, fragments by formula.
__global__ void mma_f64_k16(const double* A, const double* Bt, const double* C, double* D) {
  unsigned lane = lane_id(), tile = tile_id(), g = lane >> 2, t = lane & 3;
  double a[8], b[4], c[4], d[4];
  for (int i = 0; i < 8; ++i) a[i] = A[tile * 256 + (g + 8 * (i & 1)) * 16 + t + 4 * (i >> 1)];
  for (int i = 0; i < 4; ++i) b[i] = Bt[tile * 128 + g * 16 + t + 4 * i];
  for (int i = 0; i < 4; ++i) { int r, k; acc_index(i, r, k); c[i] = C[tile * 128 + r * 8 + k]; }
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0, %1, %2, %3},"
               " {%4, %5, %6, %7, %8, %9, %10, %11}, {%12, %13, %14, %15}, {%16, %17, %18, %19};"
               : "=d"(d[0]), "=d"(d[1]), "=d"(d[2]), "=d"(d[3])
               : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]),
                 "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]), "d"(c[0]), "d"(c[1]), "d"(c[2]), "d"(c[3]));
  for (int i = 0; i < 4; ++i) { int r, k; acc_index(i, r, k); D[tile * 128 + r * 8 + k] = d[i]; }
}

// e4m3 m16n8k32 (sm_89): A 16 x 32 and B^T 8 x 32 fp8 bytes (as 32-bit words), f32
// accumulators.
__global__ void mma_e4m3(const uint32_t* A, const uint32_t* Bt, const float* C, float* D) {
  unsigned lane = lane_id(), tile = tile_id(), g = lane >> 2, t = lane & 3;
  uint32_t a[4], b[2];
  float c[4], d[4];
  for (unsigned r = 0; r < 4; ++r) a[r] = A[tile * 128 + (g + 8 * (r & 1)) * 8 + 4 * (r >> 1) + t];
  for (unsigned r = 0; r < 2; ++r) b[r] = Bt[tile * 64 + g * 8 + 4 * r + t];
  for (int i = 0; i < 4; ++i) { int r, k; acc_index(i, r, k); c[i] = C[tile * 128 + r * 8 + k]; }
  asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7},"
               " {%8, %9}, {%10, %11, %12, %13};"
               : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
                 "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
  for (int i = 0; i < 4; ++i) { int r, k; acc_index(i, r, k); D[tile * 128 + r * 8 + k] = d[i]; }
}

// f16 m8n8k4 (quad pairs), A .col and B .row, f32 accumulators: quad-pair q computes
// D_q = A_q * B_q + C_q with A_q 8 x 4, B_q 4 x 8 (both row-major in memory), C_q 8 x 8.
// The halves come in as 16-bit words.
__global__ void mma_f16_m8n8k4(const uint16_t* A, const uint16_t* B, const float* C, float* D) {
  unsigned lane = lane_id(), tile = tile_id();
  unsigned q = (lane >> 2) & 3, hi = lane >> 4, l4 = lane & 3;
  unsigned a_ = tile * 128 + q * 32, b_ = tile * 128 + q * 32, c_ = tile * 256 + q * 64;
  uint32_t a[2], b[2];
  for (unsigned r = 0; r < 2; ++r) {
    // .col A: element i at row i + 4hi, column l4; .row B: row l4, column i + 4hi.
    a[r] = (uint32_t)A[a_ + (2 * r + 4 * hi) * 4 + l4] | ((uint32_t)A[a_ + (2 * r + 1 + 4 * hi) * 4 + l4] << 16);
    b[r] = (uint32_t)B[b_ + l4 * 8 + 2 * r + 4 * hi] | ((uint32_t)B[b_ + l4 * 8 + 2 * r + 1 + 4 * hi] << 16);
  }
  float c[8], d[8];
  for (unsigned i = 0; i < 8; ++i) {
    unsigned row = (lane & 1) + (i & 2) + 4 * hi, col = (i & 4) + (lane & 2) + (i & 1);
    c[i] = C[c_ + row * 8 + col];
  }
  asm volatile("mma.sync.aligned.m8n8k4.col.row.f32.f16.f16.f32 {%0, %1, %2, %3, %4, %5, %6, %7},"
               " {%8, %9}, {%10, %11}, {%12, %13, %14, %15, %16, %17, %18, %19};"
               : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3]), "=f"(d[4]), "=f"(d[5]), "=f"(d[6]), "=f"(d[7])
               : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]),
                 "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]), "f"(c[4]), "f"(c[5]), "f"(c[6]), "f"(c[7]));
  for (unsigned i = 0; i < 8; ++i) {
    unsigned row = (lane & 1) + (i & 2) + 4 * hi, col = (i & 4) + (lane & 2) + (i & 1);
    D[c_ + row * 8 + col] = d[i];
  }
}

// ldmatrix .x4 -> movmatrix (transpose of each 8x8) -> stmatrix .x4 .trans (sm_90):
// writes each 8x8 f16 block back unchanged (two transposes), and a second copy through
// stmatrix without .trans that holds each block transposed.
__global__ void ldst_roundtrip(const half* In, half* Same, half* Transposed) {
  __shared__ __align__(16) half s[4][4 * 64];
  __shared__ __align__(16) half o[4][4 * 64];
  __shared__ __align__(16) half p[4][4 * 64];
  unsigned lane = lane_id(), w = threadIdx.x / 32, tile = tile_id();
  for (int i = lane; i < 256; i += 32) s[w][i] = In[tile * 256 + i];
  __syncwarp();
  uint32_t r[4], m[4];
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(smem(&s[w][lane * 8])));
  for (int i = 0; i < 4; ++i)
    asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(m[i]) : "r"(r[i]));
  asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};"
               :: "r"(smem(&o[w][lane * 8])), "r"(m[0]), "r"(m[1]), "r"(m[2]), "r"(m[3]));
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};"
               :: "r"(smem(&p[w][lane * 8])), "r"(m[0]), "r"(m[1]), "r"(m[2]), "r"(m[3]));
  __syncwarp();
  for (int i = lane; i < 256; i += 32) {
    Same[tile * 256 + i] = o[w][i];
    Transposed[tile * 256 + i] = p[w][i];
  }
}
