// CUDA conversion intrinsics whose PTX the emulator's conversion tests run.
//
// Generated PTX (committed next to this file; tests never compile):
//   nvcc -arch=sm_90a  -ptx intrinsics.cu -o intrinsics_sm90a.ptx
//   nvcc -arch=sm_100a -ptx -DNARROW intrinsics.cu -o intrinsics_sm100a.ptx
// with nvcc 13.0 (/usr/local/bin/nvcc). Each kernel converts element tid.x of its inputs.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#ifdef NARROW
#include <cuda_fp4.h>
#include <cuda_fp6.h>
#endif

extern "C" __global__ void floats2half2(const float* a, const float* b, unsigned* out) {
    int i = threadIdx.x;
    __half2 h = __floats2half2_rn(a[i], b[i]);  // .x = a (low half), .y = b
    out[i] = *reinterpret_cast<unsigned*>(&h);
}

extern "C" __global__ void floats2bfloat162(const float* a, const float* b, unsigned* out) {
    int i = threadIdx.x;
    __nv_bfloat162 h = __floats2bfloat162_rn(a[i], b[i]);
    out[i] = *reinterpret_cast<unsigned*>(&h);
}

extern "C" __global__ void float2_to_e4m3x2(const float* a, const float* b, unsigned short* out) {
    int i = threadIdx.x;
    out[i] = __nv_cvt_float2_to_fp8x2(make_float2(a[i], b[i]), __NV_SATFINITE, __NV_E4M3);
}

extern "C" __global__ void e5m2x2_to_half2(const unsigned short* in, unsigned* out) {
    int i = threadIdx.x;
    __half2_raw r = __nv_cvt_fp8x2_to_halfraw2(in[i], __NV_E5M2);
    out[i] = (unsigned)r.x | ((unsigned)r.y << 16);
}

extern "C" __global__ void scalars(const float* a, const float* b, const double* x, int* i32,
                                   long long* i64, float* f32, unsigned short* h, unsigned* u) {
    int i = threadIdx.x;
    i32[i] = __float2int_rn(a[i]);
    i64[i] = __float2ll_rd(a[i]);
    f32[i] = __fdiv_rz(a[i], b[i]);
    __nv_bfloat16 bf = __float2bfloat16_rz(a[i]);
    h[i] = *reinterpret_cast<unsigned short*>(&bf);
    u[i] = __double2uint_rn(x[i]);
}

#ifdef NARROW
extern "C" __global__ void float2_to_e2m1x2(const float* a, const float* b, unsigned char* out) {
    int i = threadIdx.x;
    out[i] = __nv_cvt_float2_to_fp4x2(make_float2(a[i], b[i]), __NV_E2M1, cudaRoundNearest);
}

extern "C" __global__ void float2_to_e3m2x2(const float* a, const float* b, unsigned short* out) {
    int i = threadIdx.x;
    out[i] = __nv_cvt_float2_to_fp6x2(make_float2(a[i], b[i]), __NV_E3M2, cudaRoundNearest);
}

extern "C" __global__ void float2_to_ue8m0x2(const float* a, const float* b, unsigned short* out) {
    int i = threadIdx.x;
    out[i] = __nv_cvt_float2_to_e8m0x2(make_float2(a[i], b[i]), __NV_SATFINITE, cudaRoundPosInf);
}
#endif
