// arch: sm_80
// C = A @ B with bf16 inputs and fp32 accumulation on mma.sync.m16n8k16 (inline asm).
// A is M x K row-major, B is K x N row-major, both bf16 bits in uint16; M, N multiples of
// 32, K a multiple of 16. A block of 4 warps computes a 32 x 32 tile of C, each warp a
// 16 x 16 piece (two m16n8 products per k step). A fragments come from ldmatrix.x4, B
// fragments from ldmatrix.x4.trans (B is stored k-major in shared memory).
#include <cstdint>

#define BM 32
#define BN 32
#define BK 16

__device__ __forceinline__ uint32_t smem_addr(const void *p) {
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

extern "C" __global__ void __launch_bounds__(128)
mma_bf16_ldmatrix(const uint16_t *__restrict__ a, const uint16_t *__restrict__ b,
                  float *__restrict__ c, int m, int n, int k) {
    __shared__ __align__(16) uint16_t as[BM][BK];
    __shared__ __align__(16) uint16_t bs[BK][BN];
    int tid = threadIdx.x;
    int lane = tid & 31;
    int warp = tid >> 5;
    int wm = (warp >> 1) * 16;  // warp's row offset in the block tile
    int wn = (warp & 1) * 16;   // warp's column offset
    int row0 = blockIdx.y * BM;
    int col0 = blockIdx.x * BN;
    float acc[2][4] = {};
    for (int k0 = 0; k0 < k; k0 += BK) {
        // 512 elements per tile, 4 per thread (8 bytes).
        int ar = tid / 4, ac = (tid % 4) * 4;
        *reinterpret_cast<uint2 *>(&as[ar][ac]) =
            *reinterpret_cast<const uint2 *>(&a[(row0 + ar) * k + k0 + ac]);
        int br = tid / 8, bc = (tid % 8) * 4;
        *reinterpret_cast<uint2 *>(&bs[br][bc]) =
            *reinterpret_cast<const uint2 *>(&b[(k0 + br) * n + col0 + bc]);
        __syncthreads();
        uint32_t af[4], bf[4];
        uint32_t a_row = smem_addr(&as[wm + (lane % 16)][(lane / 16) * 8]);
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(af[0]), "=r"(af[1]), "=r"(af[2]), "=r"(af[3])
                     : "r"(a_row));
        int mat = lane / 8;
        uint32_t b_row = smem_addr(&bs[(mat & 1) * 8 + lane % 8][wn + (mat >> 1) * 8]);
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(bf[0]), "=r"(bf[1]), "=r"(bf[2]), "=r"(bf[3])
                     : "r"(b_row));
        for (int j = 0; j < 2; ++j) {
            asm volatile(
                "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                : "+f"(acc[j][0]), "+f"(acc[j][1]), "+f"(acc[j][2]), "+f"(acc[j][3])
                : "r"(af[0]), "r"(af[1]), "r"(af[2]), "r"(af[3]), "r"(bf[2 * j]),
                  "r"(bf[2 * j + 1]));
        }
        __syncthreads();
    }
    int g = lane / 4, q = lane % 4;
    for (int j = 0; j < 2; ++j) {
        int r = row0 + wm + g;
        int cc = col0 + wn + j * 8 + 2 * q;
        c[r * n + cc] = acc[j][0];
        c[r * n + cc + 1] = acc[j][1];
        c[(r + 8) * n + cc] = acc[j][2];
        c[(r + 8) * n + cc + 1] = acc[j][3];
    }
}
