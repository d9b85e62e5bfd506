// Original test source for the pyptx PTX corpus (Apache-2.0).
// archs: sm_80 sm_90a sm_100a sm_120a
//
// Exercises control flow: dense and sparse switch statements (jump tables /
// brx.idx where the compiler chooses them), nested loops with break and
// continue, unroll pragmas (.pragma "nounroll"), predication / select,
// early returns, goto, and kernel attributes (__launch_bounds__, __maxnreg__).
#include <cstdint>

__device__ __noinline__ int dense_switch(int op, int a, int b) {
    switch (op) {
    case 0: return a + b;
    case 1: return a - b;
    case 2: return a * b;
    case 3: return b != 0 ? a / b : 0;
    case 4: return b != 0 ? a % b : 0;
    case 5: return a & b;
    case 6: return a | b;
    case 7: return a ^ b;
    case 8: return a << (b & 31);
    case 9: return a >> (b & 31);
    case 10: return (int)((unsigned)a >> (b & 31));
    case 11: return a < b ? a : b;
    case 12: return a > b ? a : b;
    case 13: return -a;
    case 14: return ~b;
    case 15: return a == b;
    default: return 0;
    }
}

__device__ __noinline__ float dense_switch_float(unsigned sel, float x) {
    float r;
    switch (sel) {
    case 0: r = x * 1.5f; break;
    case 1: r = x + 11.0f; break;
    case 2: r = x - 3.0f; break;
    case 3: r = __fdividef(x, 7.0f); break;
    case 4: r = sqrtf(fabsf(x)); break;
    case 5: r = x * x * x; break;
    case 6: r = floorf(x); break;
    case 7: r = ceilf(x); break;
    case 8: r = truncf(x); break;
    case 9: r = rintf(x); break;
    case 10: r = fminf(x, 2.0f); break;
    case 11: r = fmaxf(x, -2.0f); break;
    case 12: r = copysignf(x, -1.0f); break;
    case 13: r = x * 0.0625f; break;
    case 14: r = 1.0f - x; break;
    case 15: r = x + x; break;
    case 16: r = x * 9.0f; break;
    case 17: r = x - 100.0f; break;
    case 18: r = x * -4.0f; break;
    case 19: r = x + 0.5f; break;
    default: r = 0.0f; break;
    }
    return r;
}

__device__ __noinline__ int sparse_switch(int key) {
    switch (key) {
    case -1000: return 1;
    case -7: return 2;
    case 0: return 3;
    case 13: return 4;
    case 256: return 5;
    case 4096: return 6;
    case 65537: return 7;
    case 1 << 30: return 8;
    default: return -1;
    }
}

__device__ __noinline__ int fallthrough_switch(int k, int v) {
    int acc = 0;
    switch (k & 7) {
    case 7: acc += v * 7;
    case 6: acc += v * 6;
    case 5: acc += v * 5;
    case 4: acc += v * 4;
    case 3: acc += v * 3;
    case 2: acc += v * 2;
    case 1: acc += v;
    case 0: acc += 1;
    }
    return acc;
}

__global__ void k_switches(const int *ops, const int *a, int *out, float *fout, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) {
        return;
    }
    out[t] = dense_switch(ops[t] & 15, a[t], a[(t + 1) % n]) + sparse_switch(a[t]) + fallthrough_switch(ops[t], a[t]);
    fout[t] = dense_switch_float((unsigned)ops[t] % 21u, (float)a[t]);
}

__global__ void k_inline_switch(const int *sel, float *out, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) {
        return;
    }
    float v = (float)t;
    switch (sel[t]) {
    case 0: v = v * 3.0f + 1.0f; break;
    case 1: v = v * v; break;
    case 2: v = -v; break;
    case 3: v = v * 0.5f; break;
    case 4: v = v + 100.0f; break;
    case 5: v = v - 7.0f; break;
    case 6: v = v * 12.0f; break;
    case 7: v = 1.0f / (v + 1.0f); break;
    case 8: v = v * 8.0f - 2.0f; break;
    case 9: v = v * 0.25f + 9.0f; break;
    case 10: v = v + v * v; break;
    case 11: v = 42.0f; break;
    default: v = 0.0f; break;
    }
    out[t] = v;
}

__global__ void __launch_bounds__(256, 2) k_loops(const float *in, float *out, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) {
        return;
    }
    float acc = 0.0f;
#pragma unroll 1
    for (int c = 0; c < cols; ++c) {
        float v = in[r * cols + c];
        if (v < 0.0f) {
            continue;
        }
        if (v > 1000.0f) {
            break;
        }
        acc += v;
    }
    int k = 0;
    do {
        acc = acc * 0.5f + 1.0f;
        ++k;
    } while (acc > 2.0f && k < 100);
#pragma unroll 4
    for (int c = 0; c < cols; ++c) {
        acc += in[c] * 0.001f;
    }
    int w = r;
    while (w > 1) {
        w = (w & 1) ? 3 * w + 1 : w / 2;
        if (w == 17) {
            goto found;
        }
    }
    out[r] = acc;
    return;
found:
    out[r] = -acc;
}

__global__ void __maxnreg__(40) k_predication(const int *in, int *out, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[t % n];
    int a = v > 10 ? v - 10 : v + 10;
    int b = (v & 1) ? a * 3 : a >> 1;
    bool p = (a > b) && (v != 0);
    bool q = (a == b) || (v < -5);
    int c = p ? a : (q ? b : v);
    unsigned u = (unsigned)v;
    int cmp = (u < 7u) + (u >= 100u) * 2 + (v <= -1) * 4;
    long long wide = (long long)v * (long long)v;
    if (wide > 1000000ll) {
        c += 1;
    }
    out[t % n] = c + cmp + (int)(wide >> 8);
}

__global__ void k_minimal_empty() {}

__global__ void k_early_exit(int *out, int n) {
    if (threadIdx.x >= (unsigned)n) {
        return;
    }
    if (blockIdx.x == 3) {
        __trap();
    }
    if (out[threadIdx.x] == 12345) {
        __brkpt();
    }
    out[threadIdx.x] = 1;
}
