// Original test source for the pyptx PTX corpus (Apache-2.0).
// archs: sm_80 sm_90a sm_100a sm_120a
// nvcc-flags: -rdc=true
//
// Compiled with relocatable device code, so the PTX shows linkage
// directives: .visible functions and variables, .weak template
// instantiations, static (internal) symbols with mangled module-local names,
// and an extern __shared__ array shared between kernels.
#include <cstdint>

__device__ int exported_value = 12;
__device__ float exported_array[8] = {1, 2, 3, 4, 5, 6, 7, 8};
__constant__ int exported_const[4] = {4, 3, 2, 1};
static __device__ int internal_value = 77;

__device__ int exported_helper(int a) { return a * 3 + exported_value; }

static __device__ __noinline__ int internal_helper(int a) { return (a ^ internal_value) + 1; }

template <typename T>
__device__ __noinline__ T templated_scale(T v, T s) {
    return v * s + (T)1;
}

template <typename T>
struct Accum {
    static __device__ T combine(T a, T b) { return a > b ? a - b : b - a; }
};

template <int N>
__device__ __noinline__ int unrolled_sum(const int *p) {
    int s = 0;
#pragma unroll
    for (int i = 0; i < N; ++i) {
        s += p[i] * (i + 1);
    }
    return s;
}

extern __shared__ unsigned char shared_pool[];

__global__ void k_linkage(const int *in, int *out, float *fout, double *dout) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[t];
    atomicAdd(&exported_value, 1);
    out[t] = exported_helper(v) + internal_helper(v) + exported_const[t & 3] +
             templated_scale<int>(v, 3) + unrolled_sum<4>(in) + unrolled_sum<7>(in + 1) + Accum<int>::combine(v, t);
    fout[t] = templated_scale<float>((float)v, 0.5f) + exported_array[t & 7] +
              Accum<float>::combine((float)v, 1.5f);
    dout[t] = (double)exported_array[t & 7] * templated_scale<double>((double)v, 0.25);
    reinterpret_cast<int *>(shared_pool)[threadIdx.x] = v;
}

__global__ void k_linkage_second(int *out) {
    int *pool = reinterpret_cast<int *>(shared_pool);
    pool[threadIdx.x] = exported_value + internal_value;
    __syncthreads();
    out[threadIdx.x] = pool[(threadIdx.x + 1) % blockDim.x] + templated_scale<int>(out[threadIdx.x], 2);
}
