// arch: sm_90a
// Thread-block clusters of 4 CTAs and distributed shared memory (cooperative_groups):
// every CTA stages its slice in shared memory, then after cluster.sync() reads the slice of
// the next CTA in the cluster (reversed) through map_shared_rank, and atomically adds its
// inputs into a counter in the shared memory of the cluster's rank-0 CTA.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

#define THREADS 64

extern "C" __global__ void __cluster_dims__(4, 1, 1) __launch_bounds__(THREADS)
cluster_dsmem(const int *__restrict__ in, int *__restrict__ out, int *__restrict__ sums) {
    __shared__ int buf[THREADS];
    __shared__ int total;
    cg::cluster_group cluster = cg::this_cluster();
    unsigned int rank = cluster.block_rank();
    int gi = blockIdx.x * THREADS + threadIdx.x;
    buf[threadIdx.x] = in[gi];
    if (threadIdx.x == 0) {
        total = 0;
    }
    cluster.sync();
    unsigned int next = (rank + 1) % cluster.num_blocks();
    int *remote = cluster.map_shared_rank(buf, next);
    out[gi] = remote[THREADS - 1 - threadIdx.x] + static_cast<int>(rank) * 1000;
    atomicAdd(cluster.map_shared_rank(&total, 0), in[gi]);
    cluster.sync();  // remote reads and adds are done before any CTA exits
    if (rank == 0 && threadIdx.x == 0) {
        sums[blockIdx.x / cluster.num_blocks()] = total;
    }
}
