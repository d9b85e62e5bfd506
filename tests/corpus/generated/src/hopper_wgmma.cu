// Original test source for the pyptx PTX corpus (Apache-2.0).
// archs: sm_90a
//
// Exercises Hopper warpgroup MMA through inline PTX: shared-memory matrix
// descriptors, wgmma.mma_async with f16/bf16/tf32/fp8/int8 inputs (A from
// shared memory and from registers), wgmma.fence / commit_group / wait_group,
// and stmatrix.
#include <cstdint>
#include <cuda_fp16.h>

__device__ __forceinline__ unsigned long long make_smem_desc(const void *smem_ptr, unsigned lbo, unsigned sbo,
                                                             unsigned swizzle) {
    unsigned addr = (unsigned)__cvta_generic_to_shared(smem_ptr);
    unsigned long long desc = 0;
    desc |= (unsigned long long)((addr & 0x3ffff) >> 4);
    desc |= (unsigned long long)((lbo & 0x3ffff) >> 4) << 16;
    desc |= (unsigned long long)((sbo & 0x3ffff) >> 4) << 32;
    desc |= (unsigned long long)(swizzle & 3) << 62;
    return desc;
}

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wgmma_wait() {
    asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}

__device__ __forceinline__ void wgmma_m64n8k16_f16(float (&d)[4], unsigned long long da, unsigned long long db, int scale_d) {
    asm volatile("{\n\t"
                 ".reg .pred p;\n\t"
                 "setp.ne.b32 p, %6, 0;\n\t"
                 "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0, %1, %2, %3}, %4, %5, p, 1, 1, 0, 0;\n\t"
                 "}"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "l"(da), "l"(db), "r"(scale_d));
}

__device__ __forceinline__ void wgmma_m64n16k16_bf16_neg(float (&d)[8], unsigned long long da, unsigned long long db) {
    asm volatile("{\n\t"
                 ".reg .pred p;\n\t"
                 "setp.ne.b32 p, 1, 0;\n\t"
                 "wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 "
                 "{%0, %1, %2, %3, %4, %5, %6, %7}, %8, %9, p, -1, 1, 1, 0;\n\t"
                 "}"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
                 : "l"(da), "l"(db));
}

__device__ __forceinline__ void wgmma_m64n8k16_f16_regA(float (&d)[4], const unsigned (&a)[4], unsigned long long db) {
    asm volatile("{\n\t"
                 ".reg .pred p;\n\t"
                 "setp.eq.u32 p, 1, 1;\n\t"
                 "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0, %1, %2, %3}, {%4, %5, %6, %7}, %8, p, 1, 1, 1;\n\t"
                 "}"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db));
}

__device__ __forceinline__ void wgmma_m64n8k16_f16acc(unsigned (&d)[2], unsigned long long da, unsigned long long db) {
    asm volatile("{\n\t"
                 ".reg .pred p;\n\t"
                 "setp.ne.b32 p, 1, 0;\n\t"
                 "wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16 {%0, %1}, %2, %3, p, 1, 1, 0, 1;\n\t"
                 "}"
                 : "+r"(d[0]), "+r"(d[1])
                 : "l"(da), "l"(db));
}

__device__ __forceinline__ void wgmma_m64n8k8_tf32(float (&d)[4], unsigned long long da, unsigned long long db) {
    asm volatile("{\n\t"
                 ".reg .pred p;\n\t"
                 "setp.ne.b32 p, 1, 0;\n\t"
                 "wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 {%0, %1, %2, %3}, %4, %5, p, 1, 1;\n\t"
                 "}"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "l"(da), "l"(db));
}

__device__ __forceinline__ void wgmma_m64n8k32_e4m3_e5m2(float (&d)[4], unsigned long long da, unsigned long long db) {
    asm volatile("{\n\t"
                 ".reg .pred p;\n\t"
                 "setp.ne.b32 p, 1, 0;\n\t"
                 "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e5m2 {%0, %1, %2, %3}, %4, %5, p, 1, 1;\n\t"
                 "}"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "l"(da), "l"(db));
}

__device__ __forceinline__ void wgmma_m64n8k32_s8(int (&d)[4], unsigned long long da, unsigned long long db) {
    asm volatile("{\n\t"
                 ".reg .pred p;\n\t"
                 "setp.ne.b32 p, 1, 0;\n\t"
                 "wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8.satfinite {%0, %1, %2, %3}, %4, %5, p;\n\t"
                 "}"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
                 : "l"(da), "l"(db));
}

__global__ void __launch_bounds__(128) k_wgmma_tile(const half *a, const half *b, float *out) {
    __shared__ __align__(128) half sa[64 * 16];
    __shared__ __align__(128) half sb[16 * 16];
    int t = threadIdx.x;
    for (int i = t; i < 64 * 16; i += 128) {
        sa[i] = a[i];
    }
    for (int i = t; i < 16 * 16; i += 128) {
        sb[i] = b[i];
    }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();

    unsigned long long da = make_smem_desc(sa, 128, 256, 0);
    unsigned long long db = make_smem_desc(sb, 128, 256, 0);
    float acc[4] = {0.f, 0.f, 0.f, 0.f};
    float acc16[8] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
    float acc_tf32[4] = {0.f, 0.f, 0.f, 0.f};
    float acc_fp8[4] = {0.f, 0.f, 0.f, 0.f};
    int acc_s8[4] = {0, 0, 0, 0};
    unsigned acc_h[2] = {0u, 0u};

    wgmma_fence();
    wgmma_m64n8k16_f16(acc, da, db, 0);
    wgmma_m64n8k16_f16(acc, da + 2, db + 2, 1);
    wgmma_m64n16k16_bf16_neg(acc16, da, db);
    wgmma_m64n8k16_f16acc(acc_h, da, db);
    wgmma_m64n8k8_tf32(acc_tf32, da, db);
    wgmma_m64n8k32_e4m3_e5m2(acc_fp8, da, db);
    wgmma_m64n8k32_s8(acc_s8, da, db);
    wgmma_commit();
    wgmma_wait<0>();

    const unsigned *areg = reinterpret_cast<const unsigned *>(a) + (t * 4);
    unsigned afrag[4] = {areg[0], areg[1], areg[2], areg[3]};
    wgmma_fence();
    wgmma_m64n8k16_f16_regA(acc, afrag, db);
    wgmma_commit();
    wgmma_wait<1>();
    wgmma_wait<0>();

    float s = 0.f;
    for (int i = 0; i < 8; ++i) {
        s += acc16[i];
    }
    for (int i = 0; i < 4; ++i) {
        s += acc[i] + acc_tf32[i] + acc_fp8[i] + (float)acc_s8[i];
    }
    out[t] = s + __half2float(__ushort_as_half((unsigned short)(acc_h[0] & 0xffff)));

    __shared__ __align__(16) half st_tile[4 * 64];
    unsigned r0 = acc_h[0], r1 = acc_h[1], r2 = __float_as_uint(acc[0]), r3 = __float_as_uint(acc[1]);
    unsigned st_addr = (unsigned)__cvta_generic_to_shared(&st_tile[(t & 31) * 8 % 256]);
    if (t < 32) {
        asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(st_addr), "r"(r0), "r"(r1),
                     "r"(r2), "r"(r3)
                     : "memory");
        asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};" ::"r"(st_addr), "r"(r0), "r"(r1)
                     : "memory");
    }
    __syncthreads();
    out[128 + t] = __half2float(st_tile[t]);
}
