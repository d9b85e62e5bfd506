// arch: sm_90a
// One warpgroup computes C (64 x 64, fp32) = A (64 x 64) @ B^T with B given as 64 x 64
// (n, k) row-major, bf16 bits in uint16, on wgmma.mma_async.m64n64k16 (inline asm), both
// operands in shared memory without swizzle. The kernel writes the operands in the canonical
// K-major core-matrix layout (8 x 8 elements, 128 contiguous bytes each; core (row / 8, k / 8)
// at ((row / 8) * 8 + k / 8) * 128 bytes) and builds the 64-bit matrix descriptors itself:
// start address >> 4, leading byte offset (next core matrix along K: 128) >> 4 in bits 16-29,
// stride byte offset (next core matrix along M or N: 1024) >> 4 in bits 32-45, swizzle 0.
#include <cstdint>

#define DIM 64

__device__ __forceinline__ uint64_t descriptor(const void *p) {
    uint64_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(p));
    return ((addr & 0x3FFFF) >> 4) | (uint64_t(128 >> 4) << 16) | (uint64_t(1024 >> 4) << 32);
}

__device__ __forceinline__ int core_offset(int row, int k) {
    return ((row / 8) * 8 + k / 8) * 64 + (row % 8) * 8 + k % 8;  // in elements
}

extern "C" __global__ void __launch_bounds__(128)
wgmma_bf16_m64n64k16(const uint16_t *__restrict__ a, const uint16_t *__restrict__ bt,
                     float *__restrict__ c) {
    __shared__ __align__(128) uint16_t as[DIM * DIM];
    __shared__ __align__(128) uint16_t bs[DIM * DIM];
    int tid = threadIdx.x;
    for (int i = tid; i < DIM * DIM; i += blockDim.x) {
        int row = i / DIM, k = i % DIM;
        as[core_offset(row, k)] = a[i];
        bs[core_offset(row, k)] = bt[i];
    }
    // Generic-proxy stores become visible to the async proxy (wgmma reads) after this fence.
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    float d[32];
    for (int i = 0; i < 32; ++i) {
        d[i] = 0.0f;
    }
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    for (int s = 0; s < DIM / 16; ++s) {
        // K step s covers core-matrix columns 2s and 2s + 1.
        uint64_t da = descriptor(&as[2 * s * 64]);
        uint64_t db = descriptor(&bs[2 * s * 64]);
        int scale_d = s > 0;
        asm volatile(
            "{\n"
            ".reg .pred p;\n"
            "setp.ne.b32 p, %34, 0;\n"
            "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
            "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, p, 1, 1, 0, 0;\n"
            "}\n"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
          "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
          "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
          "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
          "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
            : "l"(da), "l"(db), "r"(scale_d));
    }
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    // Accumulator layout: warp w owns rows 16w..16w+15; d[4j + {0,1,2,3}] of lane l sit at
    // rows 16w + l/4 (+8 for 2, 3) and columns 8j + 2(l%4) (+1 for 1, 3).
    int warp = tid / 32, lane = tid % 32;
    int row = warp * 16 + lane / 4;
    for (int j = 0; j < 8; ++j) {
        int col = j * 8 + (lane % 4) * 2;
        c[row * DIM + col] = d[4 * j];
        c[row * DIM + col + 1] = d[4 * j + 1];
        c[(row + 8) * DIM + col] = d[4 * j + 2];
        c[(row + 8) * DIM + col + 1] = d[4 * j + 3];
    }
}
