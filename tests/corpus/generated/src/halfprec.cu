// Original test source for the pyptx PTX corpus (Apache-2.0).
// archs: sm_80 sm_90a sm_100a sm_120a
// g-archs: sm_120a
//
// Exercises reduced-precision numeric code: half and bfloat16 scalar and
// packed (x2) math, conversions with explicit rounding, and fp8 (e4m3/e5m2)
// conversions.
#include <cstdint>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>

__global__ void k_half(const __half *a, const __half *b, __half *out, const __half2 *a2, const __half2 *b2,
                       __half2 *out2, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) {
        return;
    }
    __half x = a[t];
    __half y = b[t];
    __half r = __hfma(x, y, __float2half(1.0f));
    r = __hadd(r, __hmul(x, x));
    r = __hsub_sat(r, y);
    r = __hmax(r, __hmin(x, y));
    r = hsqrt(__habs(r));
    r = __hdiv(r, __hadd(y, __float2half(2.0f)));
    r = hexp(r) + hlog(__habs(r) + __half(1.0f)) + hsin(x) + hcos(y) + hrcp(y + __half(3.0f));
    r = __hlt(x, y) ? r : __hneg(r);
    out[t] = r;

    __half2 p = a2[t];
    __half2 q = b2[t];
    __half2 s = __hfma2(p, q, __floats2half2_rn(0.5f, -0.5f));
    s = __hmul2(s, __hadd2(p, q));
    s = __hmax2(s, __lowhigh2highlow(p));
    s = h2sqrt(__habs2(s));
    s = __hcmadd(s, p, q);
    out2[t] = __hbeq2(p, q) ? s : __halves2half2(__low2half(s), __high2half(p));
}

__global__ void k_bfloat16(const __nv_bfloat16 *a, const __nv_bfloat162 *a2, float *out, __nv_bfloat16 *bout, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) {
        return;
    }
    __nv_bfloat16 x = a[t];
    __nv_bfloat16 y = __hfma(x, x, __float2bfloat16(0.25f));
    y = __hmax(y, __float2bfloat16_rz(-3.0f));
    y = hexp2(y) + hrsqrt(__habs(y) + __float2bfloat16(1.0f));
    __nv_bfloat162 v = a2[t];
    __nv_bfloat162 w = __hfma2(v, v, __floats2bfloat162_rn(1.0f, 2.0f));
    w = __hmin2(w, __bfloat162bfloat162(x));
    bout[t] = y;
    out[t] = __bfloat162float(y) + __low2float(w) + __high2float(w) + __bfloat162float(__float2bfloat16_rd(1.7f)) +
             (float)__bfloat162int_rn(x) + __half2float(__float2half_ru((float)t * 0.1f));
}

__global__ void k_fp8(const float *in, float *out, __nv_fp8_storage_t *q8, __nv_fp8x2_storage_t *q8x2, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) {
        return;
    }
    float f = in[t];
    __nv_fp8_e4m3 e4(f);
    __nv_fp8_e5m2 e5(f * 0.5f);
    __nv_fp8x2_e4m3 pair(make_float2(f, -f));
    __nv_fp8x4_e5m2 quad(make_float4(f, 1.0f, -2.0f, 0.5f));
    q8[t] = __nv_cvt_float_to_fp8(f * 4.0f, __NV_SATFINITE, __NV_E4M3);
    q8x2[t] = __nv_cvt_halfraw2_to_fp8x2(__half2(__floats2half2_rn(f, 2.0f * f)), __NV_SATFINITE, __NV_E5M2);
    __half_raw back = __nv_cvt_fp8_to_halfraw(q8[t], __NV_E4M3);
    float2 pf = float2(pair);
    float4 qf = float4(quad);
    out[t] = float(e4) + float(e5) + pf.x + pf.y + qf.x + qf.w + __half2float(__half(back));
}
