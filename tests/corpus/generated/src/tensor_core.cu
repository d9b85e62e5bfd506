// Original test source for the pyptx PTX corpus (Apache-2.0).
// archs: sm_80 sm_90a sm_100a sm_120a
// g-archs: sm_80
//
// Exercises Ampere-class tensor-core and async-copy features: WMMA fragments
// (f16, bf16, tf32, s8, f64), cp.async through the pipeline primitives and
// cooperative_groups::memcpy_async, and hand-written ldmatrix + mma.sync.
#include <cstdint>
#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_pipeline.h>
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>

using namespace nvcuda;
namespace cg = cooperative_groups;

__global__ void k_wmma_f16(const half *a, const half *b, const float *c, float *d, int lda, int ldb, int ldc) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::load_matrix_sync(acc, c, ldc, wmma::mem_row_major);
    for (int k = 0; k < 64; k += 16) {
        wmma::load_matrix_sync(fa, a + k, lda);
        wmma::load_matrix_sync(fb, b + k, ldb);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    for (int i = 0; i < acc.num_elements; ++i) {
        acc.x[i] = acc.x[i] * 0.5f;
    }
    wmma::store_matrix_sync(d, acc, ldc, wmma::mem_row_major);
}

__global__ void k_wmma_half_acc(const half *a, const half *b, half *d) {
    wmma::fragment<wmma::matrix_a, 32, 8, 16, half, wmma::col_major> fa;
    wmma::fragment<wmma::matrix_b, 32, 8, 16, half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 32, 8, 16, half> acc;
    wmma::fill_fragment(acc, __float2half(0.0f));
    wmma::load_matrix_sync(fa, a, 32);
    wmma::load_matrix_sync(fb, b, 8);
    wmma::mma_sync(acc, fa, fb, acc);
    wmma::store_matrix_sync(d, acc, 8, wmma::mem_col_major);
}

__global__ void k_wmma_bf16_tf32(const __nv_bfloat16 *a, const __nv_bfloat16 *b, const float *fa_src,
                                 const float *fb_src, float *d) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> ba;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> bb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    wmma::load_matrix_sync(ba, a, 16);
    wmma::load_matrix_sync(bb, b, 16);
    wmma::mma_sync(acc, ba, bb, acc);

    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> ta;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> tb;
    wmma::load_matrix_sync(ta, fa_src, 8);
    wmma::load_matrix_sync(tb, fb_src, 8);
    for (int i = 0; i < ta.num_elements; ++i) {
        ta.x[i] = wmma::__float_to_tf32(ta.x[i]);
    }
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc8;
    wmma::fill_fragment(acc8, 0.0f);
    wmma::mma_sync(acc8, ta, tb, acc8);
    wmma::store_matrix_sync(d, acc, 16, wmma::mem_row_major);
    wmma::store_matrix_sync(d + 256, acc8, 16, wmma::mem_col_major);
}

__global__ void k_wmma_int8_f64(const signed char *a, const signed char *b, int *d, const double *da, const double *db,
                                double *dd) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> ia;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::col_major> ib;
    wmma::fragment<wmma::accumulator, 16, 16, 16, int> iacc;
    wmma::fill_fragment(iacc, 0);
    wmma::load_matrix_sync(ia, a, 16);
    wmma::load_matrix_sync(ib, b, 16);
    wmma::mma_sync(iacc, ia, ib, iacc, true);
    wmma::store_matrix_sync(d, iacc, 16, wmma::mem_row_major);

    wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 8, 8, 4, double> facc;
    wmma::fill_fragment(facc, 1.0);
    wmma::load_matrix_sync(fa, da, 4);
    wmma::load_matrix_sync(fb, db, 4);
    wmma::mma_sync(facc, fa, fb, facc);
    wmma::store_matrix_sync(dd, facc, 8, wmma::mem_row_major);
}

__global__ void k_cp_async_pipeline(const float4 *src, float4 *dst, int tiles) {
    __shared__ __align__(16) float4 stage[2][128];
    int t = threadIdx.x;
    __pipeline_memcpy_async(&stage[0][t], &src[t], sizeof(float4));
    __pipeline_commit();
    for (int tile = 0; tile < tiles; ++tile) {
        int cur = tile & 1;
        if (tile + 1 < tiles) {
            __pipeline_memcpy_async(&stage[cur ^ 1][t], &src[(tile + 1) * 128 + t], sizeof(float4));
        }
        __pipeline_commit();
        __pipeline_wait_prior(1);
        __syncthreads();
        float4 v = stage[cur][(t + 1) & 127];
        v.x += 1.0f;
        dst[tile * 128 + t] = v;
        __syncthreads();
    }
    __shared__ __align__(8) unsigned long long small[128];
    __pipeline_memcpy_async(&small[t], reinterpret_cast<const unsigned long long *>(src) + t, 8);
    __shared__ unsigned words[128];
    __pipeline_memcpy_async(&words[t], reinterpret_cast<const unsigned *>(src) + t, 4, 2);
    __pipeline_commit();
    __pipeline_wait_prior(0);
    dst[t].y = (float)small[t] + (float)words[t];
}

__global__ void k_cg_memcpy_async(const int *src, int *dst, int n) {
    extern __shared__ int4 shbuf[];
    int *sh = reinterpret_cast<int *>(shbuf);
    cg::thread_block block = cg::this_thread_block();
    cg::memcpy_async(block, sh, src + blockIdx.x * n, sizeof(int) * n);
    cg::wait(block);
    int v = sh[block.thread_rank() % n];
    cg::memcpy_async(block, reinterpret_cast<int4 *>(sh + n), reinterpret_cast<const int4 *>(src), 16);
    cg::wait_prior<0>(block);
    dst[blockIdx.x * blockDim.x + threadIdx.x] = v + sh[n + (threadIdx.x & 63)];
}

__global__ void k_ldmatrix_mma(const half *a, const half *b, float *d) {
    __shared__ __align__(16) half sa[16 * 16];
    __shared__ __align__(16) half sb[16 * 8];
    int lane = threadIdx.x & 31;
    for (int i = lane; i < 256; i += 32) {
        sa[i] = a[i];
    }
    for (int i = lane; i < 128; i += 32) {
        sb[i] = b[i];
    }
    __syncwarp();
    unsigned a0, a1, a2, a3, b0, b1;
    unsigned sa_addr = (unsigned)__cvta_generic_to_shared(&sa[(lane & 15) * 16 + (lane >> 4) * 8]);
    unsigned sb_addr = (unsigned)__cvta_generic_to_shared(&sb[(lane & 15) * 8]);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3)
                 : "r"(sa_addr));
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];" : "=r"(b0), "=r"(b1) : "r"(sb_addr));
    float c0 = 0.f, c1 = 0.f, c2 = 0.f, c3 = 0.f;
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                 "{%0, %1, %2, %3};"
                 : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3)
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    int i0, i1, i2, i3;
    i0 = i1 = i2 = i3 = 0;
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32.satfinite {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                 "{%0, %1, %2, %3};"
                 : "+r"(i0), "+r"(i1), "+r"(i2), "+r"(i3)
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    d[lane * 4 + 0] = c0 + (float)i0;
    d[lane * 4 + 1] = c1 + (float)i1;
    d[lane * 4 + 2] = c2 + (float)i2;
    d[lane * 4 + 3] = c3 + (float)i3;
}
