// wgmma kernels compiled by nvcc for test_wgmma.py's real-compiler cross-check.
//
// Generated PTX: wgmma_kernels.ptx, with (CUDA 13.0)
//     /usr/local/bin/nvcc -arch=sm_90a -ptx wgmma_kernels.cu -o wgmma_kernels.ptx
// Each kernel is one warpgroup (128 threads) and lays out its shared-memory operands itself,
// the way TMA / CUTLASS do, then builds the 64-bit matrix descriptors (PTX ISA "Matrix
// Descriptor Format": start >> 4 in bits 0-13, LBO >> 4 in 16-29, SBO >> 4 in 32-45, swizzle
// mode in 62-63: 1 = 128B, 2 = 64B, 3 = 32B, 0 = none).
#include <cstdint>

__device__ __forceinline__ uint64_t desc(const void *p, uint32_t lbo, uint32_t sbo,
                                         uint64_t mode) {
    uint64_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(p));
    return ((addr & 0x3FFFF) >> 4) | (uint64_t((lbo & 0x3FFFF) >> 4) << 16) |
           (uint64_t((sbo & 0x3FFFF) >> 4) << 32) | (mode << 62);
}

__device__ __forceinline__ void fence_operands() {
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
}

// Accumulator fragment (ISA figure 149): d[i] of thread t sits at row 16 * (t / 32) + (t % 32)
// / 4 + 8 * ((i >> 1) & 1), column 8 * (i >> 2) + 2 * (t % 4) + (i & 1).
__device__ __forceinline__ int d_row(int t, int i) { return 16 * (t / 32) + (t % 32) / 4 + 8 * ((i >> 1) & 1); }
__device__ __forceinline__ int d_col(int t, int i) { return 8 * (i >> 2) + 2 * (t % 4) + (i & 1); }

// 1. bf16, C (64 x 64, f32) = A (64 x 64, row-major) * B^T (B: 64 x 64, n x k row-major).
// Both operands K-major with the 128-byte swizzle: row r at r * 128 bytes, its 16-byte chunk c
// stored at chunk c ^ (r % 8) (what TMA writes for a 64-element bf16 box); 8-row groups 1024
// bytes apart (SBO), LBO unused (16). The four K blocks of 16 advance the start address by 32
// bytes, as CUTLASS does; one wgmma-group per K block, waiting with wait_group 1 so one group
// stays in flight, then wait_group 0.
extern "C" __global__ void __launch_bounds__(128)
wgmma_bf16_sw128_kloop(const uint16_t *__restrict__ a, const uint16_t *__restrict__ b,
                       float *__restrict__ c) {
    __shared__ __align__(1024) uint16_t sa[64 * 64];
    __shared__ __align__(1024) uint16_t sb[64 * 64];
    int tid = threadIdx.x;
    for (int i = tid; i < 64 * 64; i += 128) {
        int r = i / 64, k = i % 64;
        int chunk = (k * 2 / 16) ^ (r % 8);
        int at = (r * 128 + chunk * 16 + (k * 2) % 16) / 2;
        sa[at] = a[i];
        sb[at] = b[i];
    }
    fence_operands();
    float d[32];
    for (int i = 0; i < 32; ++i) d[i] = 0.0f;
    uint64_t da = desc(sa, 16, 1024, 1), db = desc(sb, 16, 1024, 1);
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
    for (int kb = 0; kb < 4; ++kb) {
        asm volatile(
            "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
            "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
            "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, "
            "%18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, p,"
            " 1, 1, 0, 0;\n}\n"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
              "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
              "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
              "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
              "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
              "+f"(d[30]), "+f"(d[31])
            : "l"(da + 2 * kb), "l"(db + 2 * kb), "r"(kb));
        asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
    }
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    for (int i = 0; i < 32; ++i) c[d_row(tid, i) * 64 + d_col(tid, i)] = d[i];
}

// 2. f16 with A in registers: C (64 x 32, f32) += (-A) (64 x 16, row-major) * B, where B is
// given k x n (16 x 32, row-major: N-major) and used with imm-trans-b = 1. A fragments
// (ISA figure 148): a_i of thread t is A[16 * (t / 32) + (t % 32) / 4 + 8 * ((i / 2) % 2)]
// [2 * (t % 4) + i % 2 + 8 * (i / 4)], two per 32-bit register, low half first. B is N-major
// with the 64-byte swizzle: K row k at (k / 8) * 512 + (k % 8) * 64 bytes (SBO 512), each row
// holding 32 n, 16-byte chunks XORed with address bits 7-8.
extern "C" __global__ void __launch_bounds__(128)
wgmma_f16_rega_ntrans(const uint16_t *__restrict__ a, const uint16_t *__restrict__ b,
                      const float *__restrict__ c_in, float *__restrict__ c) {
    __shared__ __align__(1024) uint16_t sb[16 * 32];
    int tid = threadIdx.x;
    for (int i = tid; i < 16 * 32; i += 128) {
        int k = i / 32, n = i % 32;
        uint32_t o = (k / 8) * 512 + (k % 8) * 64 + n * 2;
        o ^= ((o >> 7) & 3) << 4;
        sb[o / 2] = b[i];
    }
    fence_operands();
    uint32_t ar[4];
    int row = 16 * (tid / 32) + (tid % 32) / 4, col = 2 * (tid % 4);
    for (int j = 0; j < 4; ++j) {
        int r = row + 8 * (j % 2), k = col + 8 * (j / 2);
        ar[j] = uint32_t(a[r * 16 + k]) | (uint32_t(a[r * 16 + k + 1]) << 16);
    }
    float d[16];
    for (int i = 0; i < 16; ++i) d[i] = c_in[d_row(tid, i) * 32 + d_col(tid, i)];
    uint64_t db = desc(sb, 2048, 512, 2);
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    asm volatile(
        "wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, "
        "{%16, %17, %18, %19}, %20, 1, -1, 1, 1;\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]),
          "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
        : "r"(ar[0]), "r"(ar[1]), "r"(ar[2]), "r"(ar[3]), "l"(db));
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    for (int i = 0; i < 16; ++i) c[d_row(tid, i) * 32 + d_col(tid, i)] = d[i];
}

// 3. s8, C (64 x 16, s32, saturating) += A (64 x 32) * B^T (B: 16 x 32, n x k), both K-major
// without swizzle: 8-row x 16-byte core matrices of 128 contiguous bytes, the two K cores of
// a row group next to each other (LBO 128), row groups 256 bytes apart (SBO).
extern "C" __global__ void __launch_bounds__(128)
wgmma_s8_interleave_satfinite(const int8_t *__restrict__ a, const int8_t *__restrict__ b,
                              const int *__restrict__ c_in, int *__restrict__ c) {
    __shared__ __align__(128) int8_t sa[64 * 32];
    __shared__ __align__(128) int8_t sb[16 * 32];
    int tid = threadIdx.x;
    for (int i = tid; i < 64 * 32; i += 128) {
        int r = i / 32, k = i % 32;
        int at = (r / 8) * 256 + (k / 16) * 128 + (r % 8) * 16 + k % 16;
        sa[at] = a[i];
        if (i < 16 * 32) sb[at] = b[i];
    }
    fence_operands();
    int d[8];
    for (int i = 0; i < 8; ++i) d[i] = c_in[d_row(tid, i) * 16 + d_col(tid, i)];
    uint64_t da = desc(sa, 128, 256, 0), db = desc(sb, 128, 256, 0);
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    asm volatile(
        "wgmma.mma_async.sync.aligned.m64n16k32.s32.s8.s8.satfinite "
        "{%0, %1, %2, %3, %4, %5, %6, %7}, %8, %9, 1;\n"
        : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]),
          "+r"(d[7])
        : "l"(da), "l"(db));
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    for (int i = 0; i < 8; ++i) c[d_row(tid, i) * 16 + d_col(tid, i)] = d[i];
}
