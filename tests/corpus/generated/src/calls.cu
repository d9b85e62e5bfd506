// Original test source for the pyptx PTX corpus (Apache-2.0).
// archs: sm_80 sm_90a sm_100a sm_120a
//
// Exercises non-inlined device functions (call / .func with parameters and
// return values), function pointers (indirect calls -> .callprototype),
// virtual dispatch, recursion, struct arguments and results, and printf
// (vprintf extern .func).
#include <cstdio>
#include <cstdint>

struct Pair {
    float lo;
    float hi;
};

struct Wide {
    double a;
    int b;
    short c;
    char d[6];
};

__device__ __noinline__ int scale_add(int x, int mul, int add) {
    return x * mul + add;
}

__device__ __noinline__ float blend(float a, float b, float t) {
    return a + (b - a) * t;
}

__device__ __noinline__ double poly3(double x, double c0, double c1, double c2, double c3) {
    return ((c3 * x + c2) * x + c1) * x + c0;
}

__device__ __noinline__ Pair minmax4(float a, float b, float c, float d) {
    Pair p;
    p.lo = fminf(fminf(a, b), fminf(c, d));
    p.hi = fmaxf(fmaxf(a, b), fmaxf(c, d));
    return p;
}

__device__ __noinline__ Wide make_wide(double a, int b) {
    Wide w;
    w.a = a * 0.5;
    w.b = b ^ 0x5a5a;
    w.c = (short)(b >> 3);
    for (int i = 0; i < 6; ++i) {
        w.d[i] = (char)('a' + ((b + i) % 26));
    }
    return w;
}

__device__ __noinline__ int sum_wide(Wide w) {
    int s = (int)w.a + w.b + w.c;
    for (int i = 0; i < 6; ++i) {
        s += w.d[i];
    }
    return s;
}

__device__ __noinline__ void write_pair(Pair *out, Pair value) {
    *out = value;
}

__device__ __noinline__ unsigned long long collatz_steps(unsigned long long n, unsigned depth) {
    if (n <= 1 || depth > 64) {
        return 0;
    }
    unsigned long long next = (n & 1ull) ? 3ull * n + 1ull : n >> 1;
    return 1ull + collatz_steps(next, depth + 1);
}

__device__ __noinline__ int gcd_rec(int a, int b) {
    return b == 0 ? a : gcd_rec(b, a % b);
}

__device__ __noinline__ bool is_odd(unsigned v);
__device__ __noinline__ bool is_even(unsigned v) {
    return v == 0 ? true : is_odd(v - 1);
}
__device__ __noinline__ bool is_odd(unsigned v) {
    return v == 0 ? false : is_even(v - 1);
}

typedef float (*unary_fn)(float);
typedef int (*binary_int_fn)(int, int);
typedef Pair (*pair_fn)(float, float, float, float);

__device__ __noinline__ float op_square(float x) { return x * x; }
__device__ __noinline__ float op_negate(float x) { return -x; }
__device__ __noinline__ float op_half(float x) { return 0.5f * x; }
__device__ __noinline__ float op_recip(float x) { return 1.0f / x; }

__device__ __noinline__ int op_add(int a, int b) { return a + b; }
__device__ __noinline__ int op_sub(int a, int b) { return a - b; }
__device__ __noinline__ int op_max(int a, int b) { return a > b ? a : b; }

__device__ __noinline__ unary_fn pick_unary(int which) {
    switch (which & 3) {
    case 0: return op_square;
    case 1: return op_negate;
    case 2: return op_half;
    default: return op_recip;
    }
}

__device__ __noinline__ int fold(const int *data, int n, binary_int_fn fn, int init) {
    int acc = init;
    for (int i = 0; i < n; ++i) {
        acc = fn(acc, data[i]);
    }
    return acc;
}

__device__ __noinline__ float apply_chain(float x, unary_fn a, unary_fn b, unary_fn c) {
    return c(b(a(x)));
}

struct Shape {
    __device__ virtual float area() const = 0;
    __device__ virtual int sides() const { return 0; }
    __device__ virtual ~Shape() {}
};

struct Rect : Shape {
    float w, h;
    __device__ Rect(float w_, float h_) : w(w_), h(h_) {}
    __device__ float area() const override { return w * h; }
    __device__ int sides() const override { return 4; }
};

struct Tri : Shape {
    float b, h;
    __device__ Tri(float b_, float h_) : b(b_), h(h_) {}
    __device__ float area() const override { return 0.5f * b * h; }
    __device__ int sides() const override { return 3; }
};

__device__ __noinline__ float describe(const Shape &s) {
    return s.area() + (float)s.sides();
}

__global__ void k_direct_calls(const int *in, int *out, float *fout, double *dout, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) {
        return;
    }
    int v = in[i];
    out[i] = scale_add(v, 7, -3) + gcd_rec(v, 48) + (is_even((unsigned)v & 31u) ? 1 : 0);
    fout[i] = blend((float)v, 100.0f, 0.25f);
    dout[i] = poly3((double)v, 1.0, -2.0, 0.5, 0.125);
    Pair p = minmax4(fout[i], (float)v, -1.0f, 3.5f);
    write_pair(reinterpret_cast<Pair *>(fout + n) + i, p);
    Wide w = make_wide(dout[i], v);
    out[n + i] = sum_wide(w) + (int)collatz_steps((unsigned long long)(v & 1023) + 1ull, 0);
}

__global__ void k_indirect_calls(const int *in, float *out, int n, int selector) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) {
        return;
    }
    unary_fn f0 = pick_unary(selector + i);
    unary_fn f1 = pick_unary(selector + 2 * i + 1);
    unary_fn f2 = pick_unary(selector ^ i);
    out[i] = apply_chain((float)in[i] + 1.0f, f0, f1, f2);

    binary_int_fn ops[3] = {op_add, op_sub, op_max};
    binary_int_fn chosen = ops[(i + selector) % 3];
    out[n + i] = (float)fold(in, (i & 15) + 1, chosen, selector);

    pair_fn pf = (selector & 1) ? minmax4 : nullptr;
    if (pf) {
        Pair p = pf(out[i], 1.0f, 2.0f, (float)selector);
        out[2 * n + i] = p.hi - p.lo;
    }
}

__global__ void k_virtual(float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) {
        return;
    }
    Rect r((float)i, 2.0f);
    Tri t(3.0f, (float)i);
    const Shape *s = (i & 1) ? static_cast<const Shape *>(&r) : static_cast<const Shape *>(&t);
    out[i] = describe(*s);
}

__global__ void k_printf(const int *in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0) {
        printf("corpus printf: n=%d\n", n);
    }
    if (i < n && (in[i] & 0xff) == 0x42) {
        printf("tid %d block %d value %d scaled %f big %lld ptr %p str %s\n",
               threadIdx.x, blockIdx.x, in[i], (double)in[i] * 1.5,
               (long long)in[i] << 33, (const void *)(in + i), "marker");
    }
}
