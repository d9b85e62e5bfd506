// Original test source for the pyptx PTX corpus (Apache-2.0).
// archs: sm_80 sm_90a sm_100a sm_120a
// g-archs: sm_100a
//
// Exercises double- and single-precision math library calls, explicit
// rounding-mode intrinsics, fast-math intrinsics, integer/SIMD-in-word
// intrinsics, conversions and 128-bit / 64-bit integer arithmetic.
#include <cstdint>

__global__ void k_double_math(const double *in, double *out, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) {
        return;
    }
    double x = in[t];
    double r = sin(x) + cos(x) * exp(-x * x) + log1p(fabs(x)) + sqrt(fabs(x)) + rsqrt(fabs(x) + 1.0);
    r += pow(fabs(x) + 0.5, 1.75) + atan2(x, 2.0) + tanh(x) + cbrt(x) + erf(x) + lgamma(fabs(x) + 1.0);
    r = fma(r, x, 1.0 / (x + 3.0));
    r += __dadd_rn(x, 1.0) + __dmul_rz(x, 3.0) + __ddiv_ru(x, 7.0) + __dsqrt_rd(fabs(x)) + __fma_rn(x, x, x);
    int e = 0;
    double mant = frexp(r, &e);
    r += mant + (double)e + ldexp(x, 3) + fmod(x, 0.3) + remainder(x, 0.7) + floor(x) + round(x);
    out[t] = r;
    out[n + t] = (double)__double2float_rn(x) + (double)__double2int_rz(x) + (double)__double2ll_rd(x) +
                 (double)__double2uint_ru(fabs(x)) + __longlong_as_double(__double_as_longlong(x) ^ 1ll);
}

__global__ void k_float_math(const float *in, float *out, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) {
        return;
    }
    float x = in[t];
    float r = __sinf(x) + __cosf(x) + __expf(x) + __logf(fabsf(x) + 1.0f) + __powf(fabsf(x), 0.5f);
    r += sinf(x) * cosf(x) + expf(-x) + log2f(fabsf(x) + 2.0f) + tanf(x) + asinf(x * 0.1f) + hypotf(x, 3.0f);
    r += __fadd_rd(x, 1.0f) + __fmul_ru(x, 2.0f) + __fdiv_rz(x, 3.0f) + __fsqrt_rn(fabsf(x)) + __frcp_rn(x + 5.0f);
    r += __fmaf_rz(x, x, 1.0f) + __saturatef(x) + rsqrtf(fabsf(x) + 1.0f) + exp2f(x) + fdividef(x, 9.0f);
    r += (float)__float2int_rn(x) + (float)__float2uint_rd(fabsf(x)) + (float)__float2ll_ru(x);
    r += __int_as_float(__float_as_int(x) & 0x7fffffff) + __uint2float_rz(7u) + __ll2float_rn(-3ll);
    out[t] = r;
}

__global__ void k_integer(const unsigned *a, const unsigned long long *b, unsigned *out, unsigned long long *out64, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) {
        return;
    }
    unsigned x = a[t];
    unsigned long long y = b[t];
    unsigned r = __popc(x) + __clz(x) + __ffs(x) + __brev(x) + __byte_perm(x, ~x, 0x5140);
    r += __funnelshift_l(x, ~x, t & 31) + __funnelshift_rc(x, x * 3u, 40);
    r += __umulhi(x, 0x9e3779b9u) + (unsigned)__mulhi((int)x, -12345) + __sad((int)x, 77, 3u) + __usad(x, 9u, 1u);
    unsigned dot;
    // __dp4a/__dp2a_lo are spelled as inline PTX: nvcc 13.5 -G fails on the
    // header implementations for sm_80.
    asm("dp4a.u32.u32 %0, %1, %2, %3;" : "=r"(dot) : "r"(x), "r"(0x01020304u), "r"(5u));
    r += dot;
    asm("dp2a.lo.u32.u32 %0, %1, %2, %3;" : "=r"(dot) : "r"(x), "r"(0x00030004u), "r"(1u));
    r += dot + __uhadd(x, 100u) + __urhadd(x, 3u);
    r += __vadd4(x, 0x01010101u) + __vabsdiffu4(x, 0x80808080u) + __vcmpgtu2(x, 0x7fff7fffu) + __vmaxs4(x, 0x7f00ff01u);
    unsigned long long z = y * 0x9e3779b97f4a7c15ull + __umul64hi(y, 0xc2b2ae3d27d4eb4full);
    z ^= (unsigned long long)__popcll(y) + (unsigned long long)__clzll((long long)y) + __brevll(y);
    z += y / 1000003ull + y % 97ull + (unsigned long long)((long long)y / -13ll);
    __int128 big = (__int128)y * (__int128)z;
    unsigned __int128 ubig = (unsigned __int128)y * 0xffffffffffffull + (unsigned __int128)x;
    z += (unsigned long long)(big >> 64) + (unsigned long long)(ubig >> 32) + (unsigned long long)(ubig % 7);
    out[t] = r + x / 7u + x % 13u + (unsigned)((int)x / -3);
    out64[t] = z;
}
