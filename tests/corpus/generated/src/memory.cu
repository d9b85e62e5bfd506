// Original test source for the pyptx PTX corpus (Apache-2.0).
// archs: sm_80 sm_90a sm_100a sm_120a
// g-archs: sm_80
//
// Exercises atomics of many widths, types and scopes, local-memory arrays
// with dynamic indexing (stack frame / __local_depot), cache-hinted loads and
// stores, vector loads/stores, volatile accesses, memory fences and
// address-space conversions.
#include <cstdint>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

__global__ void k_atomics(int *ip, unsigned *up, unsigned long long *ullp, long long *llp,
                          float *fp, double *dp, __half2 *h2p, __nv_bfloat162 *b2p, __half *hp) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(ip, t);
    atomicSub(ip + 1, t);
    atomicExch(ip + 2, t);
    atomicMin(ip + 3, -t);
    atomicMax(ip + 4, t);
    atomicAnd(ip + 5, ~t);
    atomicOr(ip + 6, 1 << (t & 31));
    atomicXor(ip + 7, t * 0x9e3779b9);
    int old = atomicCAS(ip + 8, t, t + 1);
    ip[64 + (t & 63)] = old;

    atomicInc(up, 1000u);
    atomicDec(up + 1, 1000u);
    atomicMin(up + 2, (unsigned)t);
    atomicMax(up + 3, (unsigned)t);

    atomicAdd(ullp, (unsigned long long)t);
    atomicCAS(ullp + 1, 0ull, (unsigned long long)t << 40);
    atomicExch(ullp + 2, 7ull);
    atomicMin(llp, (long long)-t);
    atomicMax(llp + 1, (long long)t << 35);
    atomicAnd(ullp + 3, 0xffff0000ffff0000ull);

    atomicAdd(fp, 0.5f * (float)t);
    atomicExch(fp + 1, (float)t);
    atomicAdd(dp, 0.25 * (double)t);
    atomicAdd(h2p, __floats2half2_rn(1.0f, -1.0f));
    atomicAdd(b2p, __floats2bfloat162_rn(0.5f, 2.0f));
    atomicAdd(hp, __float2half(0.125f));

    atomicAdd_block(ip + 9, 1);
    atomicAdd_system(ip + 10, 1);
    atomicCAS_block(ip + 11, 0, t);
    atomicExch_system(up + 4, (unsigned)t);
    atomicMax_block(up + 5, (unsigned)t);
    atomicAdd_system(fp + 2, 1.0f);
}

__device__ __noinline__ int local_sort_median(const int *src, int n) {
    int buf[24];
    int m = n < 24 ? n : 24;
    for (int i = 0; i < m; ++i) {
        buf[i] = src[i];
    }
    for (int i = 1; i < m; ++i) {
        int key = buf[i];
        int j = i - 1;
        while (j >= 0 && buf[j] > key) {
            buf[j + 1] = buf[j];
            --j;
        }
        buf[j + 1] = key;
    }
    return m > 0 ? buf[m / 2] : 0;
}

__global__ void k_local_memory(const int *in, int *out, const int *indices, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    float scratch[40];
    double dscratch[9];
    for (int i = 0; i < 40; ++i) {
        scratch[i] = (float)in[(t + i) % n];
    }
    for (int i = 0; i < 9; ++i) {
        dscratch[i] = (double)scratch[(i * 5) % 40] * 1.5;
    }
    int idx = indices[t % n] % 40;
    scratch[idx] += 1.0f;
    float f = scratch[(idx * 3) % 40] + (float)dscratch[idx % 9];
    out[t] = (int)f + local_sort_median(in + (t % 8), n - (t % 8));
}

__global__ void k_cache_hints(const float4 *__restrict__ src, float4 *__restrict__ dst,
                              const int2 *__restrict__ isrc, int2 *idst, const float *ro, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) {
        return;
    }
    float4 a = __ldg(src + t);
    float4 b = __ldcg(src + ((t + 1) % n));
    float4 c = __ldca(src + ((t + 2) % n));
    float4 d = __ldcs(src + ((t + 3) % n));
    float4 e = __ldlu(src + ((t + 4) % n));
    float4 f = __ldcv(src + ((t + 5) % n));
    float4 r;
    r.x = a.x + b.y + c.z + d.w;
    r.y = e.x * f.y;
    r.z = a.w - f.w;
    r.w = __ldg(ro + t);
    __stcs(dst + t, r);
    __stwb(dst + ((t + 7) % n), a);
    __stcg(dst + ((t + 9) % n), b);
    __stwt(dst + ((t + 11) % n), c);
    int2 v = isrc[t];
    v.x += v.y;
    idst[t] = v;
}

__global__ void k_volatile_and_fences(volatile int *flags, int *data, unsigned long long *stamp) {
    int t = threadIdx.x;
    data[t] = t * 3;
    __threadfence_block();
    __threadfence();
    __threadfence_system();
    if (t == 0) {
        flags[0] = 1;
        while (flags[1] == 0) {
        }
    }
    __syncthreads();
    stamp[t] = clock64() + (unsigned long long)clock() + (unsigned long long)(flags[2] & 0xff);
}

__global__ void k_address_spaces(float *gptr, int which) {
    __shared__ float sh[64];
    float local_arr[4] = {1.0f, 2.0f, 3.0f, 4.0f};
    sh[threadIdx.x & 63] = (float)threadIdx.x;
    __syncthreads();
    float *generic_ptr = (which == 0) ? gptr : ((which == 1) ? sh : local_arr);
    float v = generic_ptr[threadIdx.x & 3];
    unsigned long long as_int = (unsigned long long)generic_ptr;
    gptr[threadIdx.x] = v + (float)(as_int & 0xf) + (float)__isShared(generic_ptr) + (float)__isGlobal(generic_ptr) +
                        (float)__isLocal(generic_ptr) + (float)__isConstant(generic_ptr);
    size_t shared_addr = __cvta_generic_to_shared(sh + 3);
    gptr[blockDim.x + threadIdx.x] = (float)shared_addr;
}

__global__ void k_memcpy_memset(char *dst, const char *src, int n) {
    char buf[48];
    memcpy(buf, src + (threadIdx.x % 16), 48);
    memset(dst + threadIdx.x * 64, 0x5a, 16);
    for (int i = 0; i < 48; ++i) {
        dst[threadIdx.x * 64 + 16 + i] = buf[(i + n) % 48];
    }
}
