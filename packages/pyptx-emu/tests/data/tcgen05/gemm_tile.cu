// A 128 x 64 x 64 bf16 GEMM tile on Blackwell tensor cores, written for the pyptx emulator's
// tests (Apache-2.0, like the rest of pyptx). One CTA of 128 threads:
//   * copies A (128 x 64, K contiguous) and B (64 x 64, K contiguous) from global memory into
//     shared memory in the K-major 128-byte-swizzle layout (8-row x 128-byte atoms, 16-byte
//     chunk c of row r stored at chunk c ^ (r % 8)), as TMA would;
//   * warp 0 allocates 64 TMEM columns (tcgen05.alloc writes the address to shared memory);
//   * thread 0 issues four tcgen05.mma.cta_group::1.kind::f16 (M=128, N=64, K=16 each),
//     advancing both shared-memory descriptors by 32 bytes per K step, and commits them to
//     an mbarrier; every thread waits on it;
//   * each warp reads its 32 TMEM lanes with tcgen05.ld.32x32b.x8 and stores the f32 rows of
//     C = A @ B^T; warp 0 frees the columns.
//
// Regenerate: /usr/local/bin/nvcc -arch=sm_100a -ptx gemm_tile.cu -o gemm_tile.ptx
// (CUDA 13.0, V13.0.88).
#include <cstdint>

__device__ __forceinline__ unsigned long long smem_addr(const void *p) {
    unsigned long long a;
    asm volatile("cvta.to.shared.u64 %0, %1;" : "=l"(a) : "l"(p));
    return a;
}

__device__ __forceinline__ unsigned long long sw128_desc(unsigned long long addr) {
    // start >> 4 | LBO 16 B >> 4 << 16 | SBO 1024 B >> 4 << 32 | version 1 << 46 | 128B << 61
    return ((addr & 0x3FFFFull) >> 4) | (1ull << 16) | (64ull << 32) | (1ull << 46) |
           (2ull << 61);
}

extern "C" __global__ void __launch_bounds__(128)
gemm_tile(const uint4 *a, const uint4 *b, float *c) {
    __shared__ __align__(1024) uint4 sa[128 * 8];
    __shared__ __align__(1024) uint4 sb[64 * 8];
    __shared__ __align__(8) unsigned long long bar;
    __shared__ unsigned tmem_slot;
    const unsigned t = threadIdx.x, warp = t / 32;
    for (unsigned i = t; i < 128 * 8; i += 128) {
        unsigned row = i / 8, chunk = i % 8;
        sa[row * 8 + (chunk ^ (row % 8))] = a[i];
    }
    for (unsigned i = t; i < 64 * 8; i += 128) {
        unsigned row = i / 8, chunk = i % 8;
        sb[row * 8 + (chunk ^ (row % 8))] = b[i];
    }
    if (warp == 0) {
        asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.b32 [%0], 64;"
                     :: "l"(&tmem_slot) : "memory");
        asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
    }
    if (t == 0) {
        asm volatile("mbarrier.init.b64 [%0], 1;" :: "l"(&bar) : "memory");
    }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
    __syncthreads();
    asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
    const unsigned tmem = tmem_slot;
    if (t == 0) {
        // f16 kind: D f32 (bit 4), A and B bf16 (bits 7, 10), N >> 3 at 17, M >> 4 at 24.
        const unsigned idesc = (1u << 4) | (1u << 7) | (1u << 10) | (8u << 17) | (8u << 24);
        const unsigned long long da = sw128_desc(smem_addr(sa));
        const unsigned long long db = sw128_desc(smem_addr(sb));
        for (unsigned k = 0; k < 4; ++k) {
            asm volatile("{\n\t.reg .pred acc;\n\t"
                         "setp.ne.u32 acc, %4, 0;\n\t"
                         "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, acc;\n\t}"
                         :: "r"(tmem), "l"(da + 2 * k), "l"(db + 2 * k), "r"(idesc), "r"(k)
                         : "memory");
        }
        asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.b64 [%0];"
                     :: "l"(&bar) : "memory");
    }
    unsigned done = 0;
    while (!done) {
        asm volatile("{\n\t.reg .pred p;\n\t"
                     "mbarrier.try_wait.parity.b64 p, [%1], 0;\n\t"
                     "selp.u32 %0, 1, 0, p;\n\t}"
                     : "=r"(done) : "l"(&bar) : "memory");
    }
    asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
    const unsigned lanes = tmem + ((warp * 32) << 16);
    for (unsigned col = 0; col < 64; col += 8) {
        unsigned r[8];
        asm volatile("tcgen05.ld.sync.aligned.32x32b.x8.b32 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8];"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]),
                       "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7])
                     : "r"(lanes + col));
        asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
        for (int j = 0; j < 8; ++j) {
            c[t * 64 + col + j] = __uint_as_float(r[j]);
        }
    }
    asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
    __syncthreads();
    if (warp == 0) {
        asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 64;" :: "r"(tmem) : "memory");
    }
}
