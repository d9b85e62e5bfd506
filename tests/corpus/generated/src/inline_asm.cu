// Original test source for the pyptx PTX corpus (Apache-2.0).
// archs: sm_80 sm_90a sm_100a sm_120a
//
// Exercises inline PTX: scoped { .reg ... } blocks, predicates, multiple
// outputs, read-write operands, immediates ("n"), 16/32/64-bit and float
// constraints, memory clobbers, labels inside asm blocks, an indirect
// branch through a .branchtargets table (brx.idx), and a .callprototype-based
// indirect call written by hand.
#include <cstdint>

__device__ __forceinline__ unsigned add_carry_chain(unsigned a, unsigned b, unsigned c, unsigned d, unsigned *hi) {
    unsigned lo, h;
    asm("{\n\t"
        ".reg .u32 t0, t1;\n\t"
        "add.cc.u32 t0, %2, %3;\n\t"
        "addc.cc.u32 t1, %4, %5;\n\t"
        "addc.u32 %1, 0, 0;\n\t"
        "xor.b32 %0, t0, t1;\n\t"
        "}"
        : "=r"(lo), "=r"(h)
        : "r"(a), "r"(b), "r"(c), "r"(d));
    *hi = h;
    return lo;
}

__device__ __forceinline__ int predicated_select(int x, int y) {
    int r;
    asm("{\n\t"
        ".reg .pred p, q;\n\t"
        "setp.lt.s32 p, %1, %2;\n\t"
        "setp.eq.or.s32 q, %1, 0, p;\n\t"
        "@p mov.s32 %0, %1;\n\t"
        "@!p mov.s32 %0, %2;\n\t"
        "@q add.s32 %0, %0, 1;\n\t"
        "}"
        : "=r"(r)
        : "r"(x), "r"(y));
    return r;
}

__device__ __forceinline__ void rw_operand(float &acc, float v) {
    asm("fma.rn.f32 %0, %1, %1, %0;" : "+f"(acc) : "f"(v));
}

__device__ __forceinline__ double fused64(double a, double b) {
    double r;
    asm("{\n\t"
        ".reg .f64 tmp;\n\t"
        "mul.rn.f64 tmp, %1, %2;\n\t"
        "add.rz.f64 %0, tmp, %1;\n\t"
        "}"
        : "=d"(r)
        : "d"(a), "d"(b));
    return r;
}

__device__ __forceinline__ unsigned short half_bits(unsigned short h) {
    unsigned short r;
    asm("{\n\t"
        ".reg .b16 t;\n\t"
        "xor.b16 t, %1, 0x8000;\n\t"
        "mov.b16 %0, t;\n\t"
        "}"
        : "=h"(r)
        : "h"(h));
    return r;
}

template <int SHIFT>
__device__ __forceinline__ unsigned long long rotl64(unsigned long long x) {
    unsigned long long r;
    asm("{\n\t"
        ".reg .b64 lhs, rhs;\n\t"
        "shl.b64 lhs, %1, %2;\n\t"
        "shr.b64 rhs, %1, %3;\n\t"
        "or.b64 %0, lhs, rhs;\n\t"
        "}"
        : "=l"(r)
        : "l"(x), "n"(SHIFT), "n"(64 - SHIFT));
    return r;
}

__device__ __noinline__ int asm_loop_count(int n) {
    int count;
    asm volatile("{\n\t"
                 ".reg .s32 i;\n\t"
                 ".reg .pred done;\n\t"
                 "mov.s32 %0, 0;\n\t"
                 "mov.s32 i, %1;\n"
                 "ASM_LOOP_TOP:\n\t"
                 "setp.le.s32 done, i, 0;\n\t"
                 "@done bra.uni ASM_LOOP_END;\n\t"
                 "add.s32 %0, %0, i;\n\t"
                 "sub.s32 i, i, 1;\n\t"
                 "bra.uni ASM_LOOP_TOP;\n"
                 "ASM_LOOP_END:\n\t"
                 "}"
                 : "=r"(count)
                 : "r"(n));
    return count;
}

__device__ __noinline__ int asm_jump_table(int sel) {
    int r;
    asm volatile("{\n\t"
                 ".reg .u32 idx;\n\t"
                 "rem.u32 idx, %1, 4;\n\t"
                 "JT_TARGETS: .branchtargets JT_CASE0, JT_CASE1, JT_CASE2, JT_CASE3;\n\t"
                 "brx.idx idx, JT_TARGETS;\n"
                 "JT_CASE0:\n\t"
                 "mov.s32 %0, 10;\n\t"
                 "bra.uni JT_DONE;\n"
                 "JT_CASE1:\n\t"
                 "mov.s32 %0, 21;\n\t"
                 "bra.uni JT_DONE;\n"
                 "JT_CASE2:\n\t"
                 "mov.s32 %0, 32;\n\t"
                 "bra.uni JT_DONE;\n"
                 "JT_CASE3:\n\t"
                 "mov.s32 %0, 43;\n"
                 "JT_DONE:\n\t"
                 "}"
                 : "=r"(r)
                 : "r"(sel));
    return r;
}

__device__ __noinline__ int asm_callee(int x) { return x * 5 + 2; }

__device__ __noinline__ int asm_indirect_call(int x) {
    int r;
    int (*fp)(int) = asm_callee;
    asm volatile("{\n\t"
                 ".reg .b32 tmp;\n\t"
                 ".param .b32 in_arg;\n\t"
                 ".param .b32 out_ret;\n\t"
                 "st.param.b32 [in_arg], %1;\n\t"
                 "proto_int_int: .callprototype (.param .b32 _) _ (.param .b32 _);\n\t"
                 "call (out_ret), %2, (in_arg), proto_int_int;\n\t"
                 "ld.param.b32 tmp, [out_ret];\n\t"
                 "mov.b32 %0, tmp;\n\t"
                 "}"
                 : "=r"(r)
                 : "r"(x), "l"(fp));
    return r;
}

__global__ void k_inline_asm(const unsigned *in, unsigned *out, float *fout, double *dout,
                             unsigned long long *lout, unsigned short *hout, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) {
        return;
    }
    unsigned hi;
    unsigned lo = add_carry_chain(in[t], in[(t + 1) % n], in[(t + 2) % n], in[(t + 3) % n], &hi);
    out[t] = lo + hi + (unsigned)predicated_select((int)in[t], t) + (unsigned)asm_loop_count(t & 15) +
             (unsigned)asm_jump_table(t) + (unsigned)asm_indirect_call(t);
    float acc = 1.0f;
    rw_operand(acc, (float)t);
    rw_operand(acc, 0.5f);
    fout[t] = acc;
    dout[t] = fused64((double)t, 1.25);
    lout[t] = rotl64<13>((unsigned long long)in[t] << 20) ^ rotl64<47>((unsigned long long)t);
    hout[t] = half_bits((unsigned short)in[t]);
}

__global__ void k_asm_memory(int *data, unsigned long long *clk) {
    int v;
    asm volatile("ld.global.relaxed.gpu.s32 %0, [%1];" : "=r"(v) : "l"(data) : "memory");
    asm volatile("st.global.release.gpu.s32 [%0], %1;" ::"l"(data + 1), "r"(v + 1) : "memory");
    asm volatile("fence.acq_rel.gpu;" ::: "memory");
    asm volatile("red.global.add.s32 [%0], %1;" ::"l"(data + 2), "r"(1) : "memory");
    int old;
    asm volatile("atom.global.acquire.gpu.cas.b32 %0, [%1], %2, %3;" : "=r"(old) : "l"(data + 3), "r"(0), "r"(v) : "memory");
    unsigned long long c;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(c));
    asm volatile("prefetch.global.L2 [%0];" ::"l"(data + 64));
    asm volatile("prefetch.global.L2::evict_last [%0];" ::"l"(data + 96));
    unsigned long long policy;
    asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
    int hinted;
    asm volatile("ld.global.L2::cache_hint.s32 %0, [%1], %2;" : "=r"(hinted) : "l"(data + 5), "l"(policy));
    asm volatile("discard.global.L2 [%0], 128;" ::"l"(data + 128) : "memory");
    clk[threadIdx.x] = c + (unsigned long long)old + (unsigned long long)hinted;
}
