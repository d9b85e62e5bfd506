// Original test source for the pyptx PTX corpus (Apache-2.0).
// archs: sm_100a
//
// Exercises Blackwell (sm_100a) tensor memory through inline PTX:
// tcgen05.alloc / relinquish_alloc_permit / dealloc, tcgen05.mma with shared
// memory descriptors and an instruction descriptor, tcgen05.commit to an
// mbarrier, tcgen05.ld / st / wait, tcgen05.cp, tcgen05.shift and the
// tcgen05 fences.
#include <cstdint>

__device__ __forceinline__ unsigned smem_u32(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

__device__ __forceinline__ unsigned long long make_desc(const void *p, unsigned lbo, unsigned sbo) {
    unsigned addr = smem_u32(p);
    unsigned long long d = (unsigned long long)((addr & 0x3ffff) >> 4);
    d |= (unsigned long long)((lbo & 0x3ffff) >> 4) << 16;
    d |= (unsigned long long)((sbo & 0x3ffff) >> 4) << 32;
    d |= 1ull << 46;
    return d;
}

__device__ __forceinline__ bool mbar_try_wait(unsigned bar, unsigned parity) {
    unsigned ok;
    asm volatile("{\n\t"
                 ".reg .pred p;\n\t"
                 "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
                 "selp.u32 %0, 1, 0, p;\n\t"
                 "}"
                 : "=r"(ok)
                 : "r"(bar), "r"(parity)
                 : "memory");
    return ok != 0;
}

__global__ void __launch_bounds__(128) k_tcgen05_mma(const unsigned short *a, const unsigned short *b, float *out,
                                                     unsigned idesc) {
    __shared__ __align__(1024) unsigned short sa[128 * 16];
    __shared__ __align__(1024) unsigned short sb[64 * 16];
    __shared__ __align__(8) unsigned long long bar;
    __shared__ unsigned tmem_base_slot;
    int t = threadIdx.x;
    int warp = t / 32;
    for (int i = t; i < 128 * 16; i += 128) {
        sa[i] = a[i];
    }
    for (int i = t; i < 64 * 16; i += 128) {
        sb[i] = b[i];
    }
    if (warp == 0) {
        asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 64;" ::"r"(smem_u32(&tmem_base_slot))
                     : "memory");
        asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
    }
    if (t == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_u32(&bar)) : "memory");
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
    __syncthreads();
    asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
    unsigned tmem = tmem_base_slot;

    if (t == 0) {
        unsigned long long da = make_desc(sa, 128, 1024);
        unsigned long long db = make_desc(sb, 128, 1024);
        for (int k = 0; k < 4; ++k) {
            asm volatile("{\n\t"
                         ".reg .pred acc;\n\t"
                         "setp.ne.b32 acc, %4, 0;\n\t"
                         "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, acc;\n\t"
                         "}" ::"r"(tmem),
                         "l"(da + 2ull * k), "l"(db + 2ull * k), "r"(idesc), "r"(k)
                         : "memory");
        }
        asm volatile("tcgen05.mma.cta_group::1.kind::tf32 [%0], %1, %2, %3, 1;" ::"r"(tmem + 32), "l"(da), "l"(db), "r"(idesc)
                     : "memory");
        asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(smem_u32(&bar))
                     : "memory");
    }
    while (!mbar_try_wait(smem_u32(&bar), 0)) {
    }
    asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");

    unsigned lane_base = tmem + ((unsigned)(warp * 32) << 16);
    unsigned r0, r1, r2, r3;
    asm volatile("tcgen05.ld.sync.aligned.32x32b.x4.b32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
                 : "r"(lane_base));
    unsigned q0, q1;
    asm volatile("tcgen05.ld.sync.aligned.16x64b.x2.b32 {%0, %1}, [%2];" : "=r"(q0), "=r"(q1) : "r"(lane_base + 8));
    asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
    out[t * 4 + 0] = __uint_as_float(r0) + __uint_as_float(q0);
    out[t * 4 + 1] = __uint_as_float(r1) + __uint_as_float(q1);
    out[t * 4 + 2] = __uint_as_float(r2);
    out[t * 4 + 3] = __uint_as_float(r3);

    unsigned w0 = r0 ^ 1u, w1 = r1 ^ 2u;
    asm volatile("tcgen05.st.sync.aligned.32x32b.x2.b32 [%0], {%1, %2};" ::"r"(lane_base + 16), "r"(w0), "r"(w1) : "memory");
    asm volatile("tcgen05.wait::st.sync.aligned;" ::: "memory");

    if (warp == 0) {
        unsigned long long sdesc = make_desc(sa, 128, 1024);
        asm volatile("tcgen05.cp.cta_group::1.128x256b [%0], %1;" ::"r"(tmem + 48), "l"(sdesc) : "memory");
        asm volatile("tcgen05.shift.cta_group::1.down [%0];" ::"r"(tmem) : "memory");
    }
    asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
    __syncthreads();
    if (warp == 0) {
        asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 64;" ::"r"(tmem) : "memory");
    }
}
