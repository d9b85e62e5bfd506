// Original test source for the pyptx PTX corpus (Apache-2.0).
// archs: sm_100a sm_120a
// g-archs: sm_100a
//
// Exercises Blackwell-family numeric and scheduling features: fp4 (e2m1) and
// fp6 (e2m3/e3m2) conversions from cuda_fp4.h / cuda_fp6.h, ue8m0 scale
// conversions, cluster launch control (try_cancel / query_cancel), and
// arch-specific code paths selected with __CUDA_ARCH__ (block-scaled
// mma.sync on sm_120a, redux.sync on f32 on sm_100a).
#include <cstdint>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_fp6.h>
#include <cuda_fp4.h>

__global__ void k_low_precision(const float *in, float *out, unsigned char *q4, unsigned char *q6, unsigned char *qs, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) {
        return;
    }
    float f = in[t];
    __nv_fp4_e2m1 f4(f);
    __nv_fp4x2_e2m1 f4x2(make_float2(f, -f));
    __nv_fp4x4_e2m1 f4x4(make_float4(f, 0.5f, -1.5f, 6.0f));
    __nv_fp6_e2m3 f6a(f);
    __nv_fp6_e3m2 f6b(f * 2.0f);
    __nv_fp6x2_e2m3 f6x2(make_float2(f, 1.0f));
    q4[t] = __nv_cvt_float_to_fp4(f * 3.0f, __NV_E2M1, cudaRoundNearest);
    q6[t] = __nv_cvt_float_to_fp6(f * 0.25f, __NV_E3M2, cudaRoundNearest);
    qs[t] = __nv_cvt_float_to_e8m0(f, __NV_SATFINITE, cudaRoundPosInf);
    __half_raw h4 = __nv_cvt_fp4_to_halfraw(q4[t], __NV_E2M1);
    __half2_raw h6 = __nv_cvt_fp6x2_to_halfraw2(f6x2.__x, __NV_E2M3);
    __nv_bfloat16_raw bs = __nv_cvt_e8m0_to_bf16raw(qs[t]);
    float2 back2 = float2(f4x2);
    float4 back4 = float4(f4x4);
    out[t] = float(f4) + back2.x + back4.w + float(f6a) + float(f6b) + __half2float(__half(h4)) +
             __half2float(__half(__ushort_as_half(h6.x))) + __bfloat162float(__nv_bfloat16(bs));
}

__global__ void k_cluster_launch_control(int *work, int *out) {
    __shared__ __align__(16) unsigned long long response[2];
    __shared__ __align__(8) unsigned long long bar;
    unsigned bar_addr = (unsigned)__cvta_generic_to_shared(&bar);
    unsigned resp_addr = (unsigned)__cvta_generic_to_shared(response);
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar_addr) : "memory");
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 16;" ::"r"(bar_addr) : "memory");
        asm volatile("clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [%0], [%1];" ::"r"(
                         resp_addr),
                     "r"(bar_addr)
                     : "memory");
    }
    unsigned done = 0;
    while (!done) {
        asm volatile("{\n\t"
                     ".reg .pred p;\n\t"
                     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n\t"
                     "selp.u32 %0, 1, 0, p;\n\t"
                     "}"
                     : "=r"(done)
                     : "r"(bar_addr)
                     : "memory");
    }
    unsigned canceled, cta_x;
    asm volatile("{\n\t"
                 ".reg .b128 resp;\n\t"
                 ".reg .pred ok;\n\t"
                 "ld.shared.b128 resp, [%2];\n\t"
                 "clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 ok, resp;\n\t"
                 "selp.u32 %0, 1, 0, ok;\n\t"
                 "clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128 %1, resp;\n\t"
                 "}"
                 : "=r"(canceled), "=r"(cta_x)
                 : "r"(resp_addr)
                 : "memory");
    out[blockIdx.x * blockDim.x + threadIdx.x] = work[blockIdx.x] + (int)canceled + (int)cta_x;
}

__global__ void k_arch_specific(const unsigned *a, const unsigned *b, float *out) {
    int lane = threadIdx.x & 31;
    float d0 = 0.f, d1 = 0.f, d2 = 0.f, d3 = 0.f;
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 1200)
    unsigned a0 = a[lane], a1 = a[lane + 32], a2 = a[lane + 64], a3 = a[lane + 96];
    unsigned b0 = b[lane], b1 = b[lane + 32];
    asm volatile("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e2m1.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                 "{%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
#elif defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 1000)
    float v = __uint_as_float(a[lane]);
    float m;
    asm volatile("redux.sync.min.abs.NaN.f32 %0, %1, 0xffffffff;" : "=f"(m) : "f"(v));
    d0 = m;
    d1 = __uint_as_float(b[lane]);
#endif
    out[lane * 4 + 0] = d0;
    out[lane * 4 + 1] = d1;
    out[lane * 4 + 2] = d2;
    out[lane * 4 + 3] = d3;
}
