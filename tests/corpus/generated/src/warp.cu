// Original test source for the pyptx PTX corpus (Apache-2.0).
// archs: sm_80 sm_90a sm_100a sm_120a
// g-archs: sm_90a
//
// Exercises warp-level primitives (shuffles, vote, match, redux), cooperative
// groups (thread_block, tiled partitions, coalesced groups, grid sync),
// special registers and named barriers.
#include <cstdint>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>

namespace cg = cooperative_groups;

__global__ void k_shuffles(const float *in, float *out, const double *din, double *dout, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    float v = t < n ? in[t] : 0.0f;
    for (int off = 16; off > 0; off >>= 1) {
        v += __shfl_down_sync(0xffffffffu, v, off);
    }
    float up = __shfl_up_sync(0xffffffffu, v, 1);
    float x = __shfl_xor_sync(0xffffffffu, v, 3);
    float b = __shfl_sync(0xffffffffu, v, 0);
    float w16 = __shfl_sync(0x0000ffffu, v, 2, 16);
    double d = t < n ? din[t] : 0.0;
    d += __shfl_xor_sync(0xffffffffu, d, 1);
    long long ll = __shfl_down_sync(0xffffffffu, (long long)t << 33, 2);
    if (t < n) {
        out[t] = v + up + x + b + w16 + (float)ll;
        dout[t] = d;
    }
}

__global__ void k_vote_match_redux(const int *in, unsigned *out, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int v = t < n ? in[t] : -1;
    unsigned ballot = __ballot_sync(0xffffffffu, v > 0);
    int all = __all_sync(0xffffffffu, v != 0);
    int any = __any_sync(0xffffffffu, v < 0);
    int uni = __uni_sync(0xffffffffu, v == 7);
    unsigned active = __activemask();
    unsigned peers = __match_any_sync(0xffffffffu, v & 7);
    int pred = 0;
    unsigned allm = __match_all_sync(0xffffffffu, v >> 4, &pred);
    unsigned radd = __reduce_add_sync(0xffffffffu, (unsigned)v);
    int rmin = __reduce_min_sync(0xffffffffu, v);
    int rmax = __reduce_max_sync(0xffffffffu, v);
    unsigned rand_ = __reduce_and_sync(0xffffffffu, (unsigned)v);
    unsigned ror = __reduce_or_sync(0xffffffffu, (unsigned)v);
    unsigned rxor = __reduce_xor_sync(0xffffffffu, (unsigned)v);
    __syncwarp();
    __syncwarp(ballot | 1u);
    if (t < n) {
        out[t] = ballot + all + any + uni + active + peers + allm + pred + radd + (unsigned)rmin +
                 (unsigned)rmax + rand_ + ror + rxor + __popc(ballot) + __ffs(peers);
    }
}

__global__ void k_special_registers(unsigned long long *out) {
    unsigned lane, warp, smid, nsmid, gridid_lo;
    unsigned long long gtimer, gridid;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    asm volatile("mov.u32 %0, %%warpid;" : "=r"(warp));
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    asm volatile("mov.u32 %0, %%nsmid;" : "=r"(nsmid));
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(gtimer));
    asm volatile("mov.u64 %0, %%gridid;" : "=l"(gridid));
    unsigned lanemask_lt;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(lanemask_lt));
    gridid_lo = (unsigned)gridid;
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    out[t] = (unsigned long long)lane + warp + smid + nsmid + gtimer + gridid_lo + lanemask_lt +
             threadIdx.y + threadIdx.z + blockIdx.y + blockIdx.z + gridDim.x + gridDim.y + gridDim.z +
             blockDim.y + blockDim.z + (unsigned)warpSize;
    __nanosleep(100);
}

__global__ void k_cooperative_groups(const int *in, int *out, int n) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    cg::thread_block_tile<8> tile8 = cg::tiled_partition<8>(block);
    int t = block.group_index().x * block.size() + block.thread_rank();
    int v = t < n ? in[t] : 0;
    int wsum = cg::reduce(warp, v, cg::plus<int>());
    int tmax = cg::reduce(tile8, v, cg::greater<int>());
    int scan = cg::inclusive_scan(warp, v);
    int ex = cg::exclusive_scan(tile8, v, cg::bit_xor<int>());
    block.sync();
    if (v & 1) {
        cg::coalesced_group active = cg::coalesced_threads();
        int rank = active.thread_rank();
        int first = active.shfl(v, 0);
        active.sync();
        v += rank + first;
    }
    warp.sync();
    int from_next = warp.shfl_down(v, 1);
    bool any_big = warp.any(v > 100);
    unsigned who = warp.ballot(v > 10);
    if (t < n) {
        out[t] = wsum + tmax + scan + ex + from_next + (int)any_big + (int)who + (int)tile8.meta_group_rank();
    }
}

__global__ void k_grid_sync(int *data, int n) {
    cg::grid_group grid = cg::this_grid();
    unsigned long long t = grid.thread_rank();
    if (t < (unsigned long long)n) {
        data[t] += 1;
    }
    grid.sync();
    if (t < (unsigned long long)n) {
        data[t] += data[(t + 1) % n];
    }
}

__global__ void k_named_barriers(float *out) {
    __shared__ float buf[256];
    int t = threadIdx.x;
    buf[t] = (float)t;
    if (t < 128) {
        asm volatile("bar.sync 1, 128;");
        out[t] = buf[127 - t];
    } else {
        asm volatile("bar.arrive 2, 128;");
        out[t] = 0.0f;
    }
    int c = __syncthreads_count(t & 1);
    int a = __syncthreads_and(t < 1000);
    int o = __syncthreads_or(t == 5);
    out[256 + t] = (float)(c + a + o);
}
