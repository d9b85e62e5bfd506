// Integer intrinsics whose PTX the emulator's tests run (see test_integer.py).
// Generated with: nvcc -arch=sm_90a -ptx intrinsics.cu -o intrinsics.ptx  (CUDA 13.0)
#include <cstdint>

extern "C" __global__ void intrinsics(const unsigned *a, const unsigned *b, const unsigned *c,
                                      const unsigned long long *x, const unsigned long long *y,
                                      unsigned *out32, unsigned long long *out64) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned u = a[i], v = b[i], w = c[i];
    unsigned long long p = x[i], q = y[i];
    unsigned *o = out32 + 18 * i;
    o[0] = __funnelshift_l(u, v, w);
    o[1] = __funnelshift_r(u, v, w);
    o[2] = __funnelshift_lc(u, v, w);
    o[3] = __funnelshift_rc(u, v, w);
    o[4] = __byte_perm(u, v, w);
    o[5] = __brev(u);
    o[6] = __clz((int)u);
    o[7] = __popc(u);
    o[8] = __sad((int)u, (int)v, w);
    o[9] = __usad(u, v, w);
    o[10] = (unsigned)__dp4a((int)u, (int)v, (int)w);
    o[11] = __dp4a(u, v, w);
    o[12] = (unsigned)__dp2a_lo((int)u, (int)v, (int)w);
    o[13] = __dp2a_hi(u, v, w);
    o[14] = __umulhi(u, v);
    o[15] = (unsigned)__mulhi((int)u, (int)v);
    o[16] = (unsigned)__clzll((long long)p) ^ w;
    o[17] = (unsigned)__popcll(p) ^ w;
    unsigned long long *o64 = out64 + 3 * i;
    o64[0] = __umul64hi(p, q);
    o64[1] = (unsigned long long)__mul64hi((long long)p, (long long)q);
    o64[2] = __brevll(p);
}
