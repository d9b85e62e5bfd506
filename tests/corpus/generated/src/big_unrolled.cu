// Original test source for the pyptx PTX corpus (Apache-2.0).
// archs: sm_80 sm_90a sm_100a sm_120a
// opts: O3
//
// A deliberately large module: fully unrolled templated kernels (sorting
// networks, small dense matrix products, polynomial chains, hash rounds and
// stencils) instantiated for many sizes and element types, so the -O3 PTX is
// hundreds of kilobytes of straight-line code with very many registers.
#include <cstdint>

template <typename T, int N>
struct Vec {
    T v[N];
};

template <typename T>
__device__ __forceinline__ void cswap(T &a, T &b) {
    T lo = a < b ? a : b;
    T hi = a < b ? b : a;
    a = lo;
    b = hi;
}

// Bitonic sorting network over N registers (N a power of two).
template <typename T, int N>
__device__ __forceinline__ void bitonic_sort(Vec<T, N> &x) {
#pragma unroll
    for (int k = 2; k <= N; k <<= 1) {
#pragma unroll
        for (int j = k >> 1; j > 0; j >>= 1) {
#pragma unroll
            for (int i = 0; i < N; ++i) {
                int l = i ^ j;
                if (l > i) {
                    if ((i & k) == 0) {
                        cswap(x.v[i], x.v[l]);
                    } else {
                        cswap(x.v[l], x.v[i]);
                    }
                }
            }
        }
    }
}

template <typename T, int N>
__global__ void k_sort_network(const T *in, T *out) {
    Vec<T, N> x;
    const T *base = in + (size_t)(blockIdx.x * blockDim.x + threadIdx.x) * N;
#pragma unroll
    for (int i = 0; i < N; ++i) {
        x.v[i] = base[i];
    }
    bitonic_sort<T, N>(x);
    T *dst = out + (size_t)(blockIdx.x * blockDim.x + threadIdx.x) * N;
#pragma unroll
    for (int i = 0; i < N; ++i) {
        dst[i] = x.v[i];
    }
}

// Per-thread dense M x K times K x N product, fully unrolled.
template <typename T, int M, int K, int N>
__global__ void k_register_gemm(const T *a, const T *b, T *c, T alpha) {
    T ra[M][K];
    T rb[K][N];
    size_t tid = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
    for (int i = 0; i < M; ++i) {
#pragma unroll
        for (int k = 0; k < K; ++k) {
            ra[i][k] = a[tid * M * K + i * K + k];
        }
    }
#pragma unroll
    for (int k = 0; k < K; ++k) {
#pragma unroll
        for (int j = 0; j < N; ++j) {
            rb[k][j] = b[k * N + j];
        }
    }
#pragma unroll
    for (int i = 0; i < M; ++i) {
#pragma unroll
        for (int j = 0; j < N; ++j) {
            T acc = (T)0;
#pragma unroll
            for (int k = 0; k < K; ++k) {
                acc += ra[i][k] * rb[k][j];
            }
            c[tid * M * N + i * N + j] = alpha * acc;
        }
    }
}

// Horner chains with distinct compile-time coefficients per degree.
template <int DEG>
__device__ __forceinline__ float horner(float x) {
    float r = 1.0f / (float)(DEG + 1);
#pragma unroll
    for (int d = DEG; d > 0; --d) {
        r = r * x + ((d & 1) ? 1.0f / (float)d : -1.0f / (float)(d + 3));
    }
    return r;
}

template <int DEG, int TERMS>
__global__ void k_poly_chain(const float *in, float *out) {
    size_t t = blockIdx.x * blockDim.x + threadIdx.x;
    float x = in[t];
    float acc = 0.0f;
#pragma unroll
    for (int i = 0; i < TERMS; ++i) {
        acc += horner<DEG>(x + (float)i * 0.125f) * (float)(i + 1);
        x = x * 0.75f + acc * 0.01f;
    }
    out[t] = acc;
}

// ARX-style hash rounds on a 16-word state.
template <int ROUNDS>
__global__ void k_hash_rounds(const unsigned *in, unsigned *out) {
    unsigned s[16];
    size_t t = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
    for (int i = 0; i < 16; ++i) {
        s[i] = in[t * 16 + i] ^ (0x9e3779b9u * (unsigned)(i + 1));
    }
#pragma unroll
    for (int r = 0; r < ROUNDS; ++r) {
#pragma unroll
        for (int q = 0; q < 4; ++q) {
            int a = q, b = 4 + ((q + r) & 3), c = 8 + ((q + 2 * r) & 3), d = 12 + ((q + 3 * r) & 3);
            s[a] += s[b];
            s[d] = __funnelshift_l(s[d] ^ s[a], s[d] ^ s[a], 16);
            s[c] += s[d];
            s[b] = __funnelshift_l(s[b] ^ s[c], s[b] ^ s[c], 12);
            s[a] += s[b] + (unsigned)(r * 7 + q);
            s[d] = __funnelshift_l(s[d] ^ s[a], s[d] ^ s[a], 8);
            s[c] += s[d];
            s[b] = __funnelshift_l(s[b] ^ s[c], s[b] ^ s[c], 7);
        }
    }
#pragma unroll
    for (int i = 0; i < 16; ++i) {
        out[t * 16 + i] = s[i];
    }
}

// Weighted 1-D stencil with a compile-time radius.
template <typename T, int RADIUS, int PER_THREAD>
__global__ void k_stencil(const T *in, T *out, int n) {
    int base = (blockIdx.x * blockDim.x + threadIdx.x) * PER_THREAD;
#pragma unroll
    for (int p = 0; p < PER_THREAD; ++p) {
        T acc = (T)0;
#pragma unroll
        for (int r = -RADIUS; r <= RADIUS; ++r) {
            int idx = min(max(base + p + r, 0), n - 1);
            acc += in[idx] * (T)(RADIUS + 1 - (r < 0 ? -r : r));
        }
        out[min(base + p, n - 1)] = acc;
    }
}

template __global__ void k_sort_network<int, 16>(const int *, int *);
template __global__ void k_sort_network<int, 32>(const int *, int *);
template __global__ void k_sort_network<float, 32>(const float *, float *);
template __global__ void k_sort_network<unsigned long long, 16>(const unsigned long long *, unsigned long long *);
template __global__ void k_sort_network<double, 16>(const double *, double *);
template __global__ void k_sort_network<short, 32>(const short *, short *);

template __global__ void k_register_gemm<float, 8, 8, 8>(const float *, const float *, float *, float);
template __global__ void k_register_gemm<float, 4, 16, 4>(const float *, const float *, float *, float);
template __global__ void k_register_gemm<double, 4, 4, 8>(const double *, const double *, double *, double);
template __global__ void k_register_gemm<int, 6, 6, 6>(const int *, const int *, int *, int);

template __global__ void k_poly_chain<12, 16>(const float *, float *);
template __global__ void k_poly_chain<24, 8>(const float *, float *);
template __global__ void k_poly_chain<7, 32>(const float *, float *);

template __global__ void k_hash_rounds<10>(const unsigned *, unsigned *);
template __global__ void k_hash_rounds<20>(const unsigned *, unsigned *);

template __global__ void k_stencil<float, 4, 8>(const float *, float *, int);
template __global__ void k_stencil<double, 3, 4>(const double *, double *, int);
template __global__ void k_stencil<int, 8, 4>(const int *, int *, int);
