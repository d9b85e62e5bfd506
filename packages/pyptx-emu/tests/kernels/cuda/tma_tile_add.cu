// arch: sm_90a
// TMA round trip: each CTA loads a 32 x 32 float tile with cp.async.bulk.tensor (completion
// on an mbarrier with an expected transaction count), adds `bias` in shared memory, and
// stores the tile back with a bulk-group TMA store. The maps are __grid_constant__ kernel
// parameters; tiles past the tensor's edge read zeros and are clipped on the store.
#include <cuda.h>
#include <cstdint>

#define TILE 32

__device__ __forceinline__ uint32_t smem_addr(const void *p) {
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

extern "C" __global__ void __launch_bounds__(128)
tma_tile_add(const __grid_constant__ CUtensorMap in_map,
             const __grid_constant__ CUtensorMap out_map, float bias) {
    __shared__ __align__(128) float tile[TILE * TILE];
    __shared__ __align__(8) uint64_t bar;
    int x0 = blockIdx.x * TILE;  // innermost coordinate (column)
    int y0 = blockIdx.y * TILE;  // row
    uint32_t bar_addr = smem_addr(&bar);
    uint32_t tile_addr = smem_addr(tile);
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(bar_addr));
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        asm volatile(
            "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar_addr),
            "r"(TILE * TILE * 4)
            : "memory");
        asm volatile(
            "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
            " [%0], [%1, {%2, %3}], [%4];\n" ::"r"(tile_addr),
            "l"(&in_map), "r"(x0), "r"(y0), "r"(bar_addr)
            : "memory");
    }
    uint32_t ready = 0;
    while (!ready) {
        asm volatile(
            "{\n.reg .pred p;\n"
            "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n"
            "selp.u32 %0, 1, 0, p;\n}\n"
            : "=r"(ready)
            : "r"(bar_addr)
            : "memory");
    }
    for (int i = threadIdx.x; i < TILE * TILE; i += blockDim.x) {
        tile[i] += bias;
    }
    // Make the generic-proxy stores visible to the TMA (async proxy) store.
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0) {
        asm volatile(
            "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];\n"
            ::"l"(&out_map), "r"(x0), "r"(y0), "r"(tile_addr)
            : "memory");
        asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
        asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory");
    }
}
