// Original test source for the pyptx PTX corpus (Apache-2.0).
// archs: sm_90a sm_100a sm_120a
//
// Exercises Hopper-and-later asynchronous data movement and cluster
// features: mbarrier (init / arrive / expect_tx / try_wait.parity),
// cp.async.bulk (global->shared, shared->global, reductions), TMA tensor
// copies through a __grid_constant__ CUtensorMap, fences (proxy.async,
// mbarrier_init), elect.sync, setmaxnreg, thread block clusters
// (__cluster_dims__, cooperative_groups cluster API, mapa, barrier.cluster,
// cluster special registers) and programmatic dependent launch.
#include <cstdint>
#include <cuda.h>
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

__device__ __forceinline__ unsigned smem_u32(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

__device__ __forceinline__ void mbar_init(unsigned long long *bar, unsigned count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(bar)), "r"(count) : "memory");
}

__device__ __forceinline__ unsigned long long mbar_arrive_expect_tx(unsigned long long *bar, unsigned bytes) {
    unsigned long long state;
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 %0, [%1], %2;"
                 : "=l"(state)
                 : "r"(smem_u32(bar)), "r"(bytes)
                 : "memory");
    return state;
}

__device__ __forceinline__ unsigned long long mbar_arrive(unsigned long long *bar) {
    unsigned long long state;
    asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];" : "=l"(state) : "r"(smem_u32(bar)) : "memory");
    return state;
}

__device__ __forceinline__ bool mbar_try_wait_parity(unsigned long long *bar, unsigned parity) {
    unsigned ok;
    asm volatile("{\n\t"
                 ".reg .pred done;\n\t"
                 "mbarrier.try_wait.parity.shared::cta.b64 done, [%1], %2;\n\t"
                 "selp.u32 %0, 1, 0, done;\n\t"
                 "}"
                 : "=r"(ok)
                 : "r"(smem_u32(bar)), "r"(parity)
                 : "memory");
    return ok != 0;
}

__device__ __forceinline__ void mbar_wait(unsigned long long *bar, unsigned parity) {
    while (!mbar_try_wait_parity(bar, parity)) {
    }
}

__device__ __forceinline__ bool elect_one() {
    unsigned is_elected;
    asm volatile("{\n\t"
                 ".reg .pred p;\n\t"
                 ".reg .b32 leader;\n\t"
                 "elect.sync leader|p, 0xffffffff;\n\t"
                 "selp.u32 %0, 1, 0, p;\n\t"
                 "}"
                 : "=r"(is_elected));
    return is_elected != 0;
}

__global__ void k_bulk_copy(const float4 *src, float4 *dst, float *red_dst, int chunks) {
    __shared__ __align__(128) float4 buf[2][256];
    __shared__ __align__(8) unsigned long long bars[2];
    int t = threadIdx.x;
    if (t == 0) {
        mbar_init(&bars[0], 1);
        mbar_init(&bars[1], 1);
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    const unsigned bytes = 256 * sizeof(float4);
    for (int c = 0; c < chunks; ++c) {
        int s = c & 1;
        if (t == 0) {
            mbar_arrive_expect_tx(&bars[s], bytes);
            asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                             smem_u32(&buf[s][0])),
                         "l"(src + c * 256), "r"(bytes), "r"(smem_u32(&bars[s]))
                         : "memory");
        }
        mbar_wait(&bars[s], (unsigned)((c >> 1) & 1));
        buf[s][t].x *= 2.0f;
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        __syncthreads();
        if (t == 0) {
            asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst + c * 256),
                         "r"(smem_u32(&buf[s][0])), "r"(bytes)
                         : "memory");
            asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%0], [%1], %2;" ::"l"(red_dst),
                         "r"(smem_u32(&buf[s][0])), "r"(1024u)
                         : "memory");
            asm volatile("cp.async.bulk.commit_group;" ::: "memory");
            asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
        }
        __syncthreads();
    }
    if (t == 0) {
        asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
        asm volatile("mbarrier.inval.shared::cta.b64 [%0];" ::"r"(smem_u32(&bars[0])) : "memory");
    }
    unsigned long long st = mbar_arrive(&bars[1]);
    dst[chunks * 256 + t].w = (float)(st & 1);
}

__global__ void k_tma_2d(const __grid_constant__ CUtensorMap tmap_in, const __grid_constant__ CUtensorMap tmap_out,
                         int tiles_x) {
    __shared__ __align__(128) float tile[32 * 32];
    __shared__ __align__(8) unsigned long long bar;
    int t = threadIdx.x;
    if (t == 0) {
        mbar_init(&bar, 1);
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        asm volatile("prefetch.tensormap [%0];" ::"l"(&tmap_in) : "memory");
    }
    __syncthreads();
    for (int tx = 0; tx < tiles_x; ++tx) {
        if (t == 0) {
            mbar_arrive_expect_tx(&bar, sizeof(tile));
            asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], "
                         "[%4];" ::"r"(smem_u32(tile)),
                         "l"(&tmap_in), "r"(tx * 32), "r"((int)blockIdx.y * 32), "r"(smem_u32(&bar))
                         : "memory");
        }
        mbar_wait(&bar, (unsigned)(tx & 1));
        tile[t] = tile[t] + 1.0f;
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        __syncthreads();
        if (t == 0) {
            asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];" ::"l"(&tmap_out),
                         "r"(tx * 32), "r"((int)blockIdx.y * 32), "r"(smem_u32(tile))
                         : "memory");
            asm volatile("cp.async.bulk.commit_group;" ::: "memory");
            asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
        }
        __syncthreads();
    }
}

__global__ void __cluster_dims__(2, 1, 1) k_cluster(int *out) {
    __shared__ int exchange[64];
    cg::cluster_group cluster = cg::this_cluster();
    unsigned rank = cluster.block_rank();
    exchange[threadIdx.x & 63] = (int)(rank * 1000 + threadIdx.x);
    cluster.sync();
    unsigned peer = (rank + 1) % cluster.num_blocks();
    int *remote = cluster.map_shared_rank(exchange, peer);
    int v = remote[(threadIdx.x + 1) & 63];
    dim3 bidx = cluster.block_index();
    dim3 cdim = cluster.dim_blocks();
    unsigned ctarank, nctarank, clusterid_x, nclusterid_x, is_explicit;
    asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(ctarank));
    asm("mov.u32 %0, %%cluster_nctarank;" : "=r"(nctarank));
    asm("mov.u32 %0, %%clusterid.x;" : "=r"(clusterid_x));
    asm("mov.u32 %0, %%nclusterid.x;" : "=r"(nclusterid_x));
    asm("{\n\t.reg .pred p;\n\tmov.pred p, %%is_explicit_cluster;\n\tselp.u32 %0, 1, 0, p;\n\t}" : "=r"(is_explicit));
    asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
    asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
    unsigned remote_addr;
    asm("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote_addr) : "r"(smem_u32(exchange)), "r"(peer));
    int dsmem_val;
    asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(dsmem_val) : "r"(remote_addr));
    cluster.sync();
    out[blockIdx.x * blockDim.x + threadIdx.x] = v + dsmem_val + (int)(bidx.x + cdim.x + ctarank + nctarank + clusterid_x +
                                                                      nclusterid_x + is_explicit);
}

__global__ void __launch_bounds__(384, 1) k_warp_specialized(const float *in, float *out, int n) {
    int warpgroup = threadIdx.x / 128;
    if (warpgroup == 0) {
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
        if (elect_one()) {
            out[0] = in[0];
        }
    } else {
        asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
        int t = threadIdx.x - 128;
        float acc = 0.0f;
        for (int i = t; i < n; i += 256) {
            acc += in[i];
        }
        out[1 + t] = acc;
    }
}

__global__ void k_dependent_launch(const int *in, int *out, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int early = t < n ? t * 2 : 0;
    cudaGridDependencySynchronize();
    if (t < n) {
        out[t] = in[t] + early;
    }
    cudaTriggerProgrammaticLaunchCompletion();
    asm volatile("griddepcontrol.launch_dependents;");
}

__global__ void k_async_store(unsigned *out) {
    __shared__ __align__(8) unsigned long long bar;
    __shared__ unsigned slot[32];
    cg::cluster_group cluster = cg::this_cluster();
    if (threadIdx.x == 0) {
        mbar_init(&bar, 1);
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    cluster.sync();
    unsigned peer = cluster.block_rank() ^ 1u;
    unsigned remote_slot, remote_bar;
    asm("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote_slot) : "r"(smem_u32(&slot[threadIdx.x & 31])), "r"(peer));
    asm("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote_bar) : "r"(smem_u32(&bar)), "r"(peer));
    if (threadIdx.x == 0) {
        mbar_arrive_expect_tx(&bar, 4);
    }
    if (threadIdx.x == 0) {
        asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%0], %1, [%2];" ::"r"(remote_slot),
                     "r"(threadIdx.x + 7u), "r"(remote_bar)
                     : "memory");
    }
    mbar_wait(&bar, 0);
    cluster.sync();
    out[threadIdx.x] = slot[threadIdx.x & 31];
}
