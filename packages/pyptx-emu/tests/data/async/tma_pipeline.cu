// Generated PTX: /usr/local/bin/nvcc -arch=sm_90a -ptx tma_pipeline.cu -o tma_pipeline.ptx (CUDA 13.0, V13.0.88);
// the emulator tests (test_async_copy.py, test_tma.py) run tma_pipeline.ptx, never compile this.
// Warp-specialized TMA pipeline written with the cuda::ptx wrappers (libcu++):
// warp 0 (one elected lane) produces, warps 1-2 consume. A ring of STAGES shared-memory
// stages, each guarded by a "full" mbarrier (the producer's arrive.expect_tx plus the TMA
// bytes) and an "empty" mbarrier (one arrival per consumer thread of every CTA of the
// cluster). With CS = 2, each CTA of the cluster loads half of the 16x32 f32 tile and
// multicasts it to both CTAs. Consumers add every tile into out[ctaid], row-major.
#include <cuda.h>
#include <cuda/ptx>
#include <cooperative_groups.h>
namespace ptx = cuda::ptx;
namespace cg = cooperative_groups;

constexpr int BM = 16;
constexpr int BK = 32;
constexpr int STAGES = 3;
constexpr int TILE_BYTES = BM * BK * 4;

template <int CS>
__device__ void pipeline(const CUtensorMap* tmap, float* out, int ktiles) {
  __shared__ alignas(128) float stage[STAGES][BM * BK];
  __shared__ alignas(8) uint64_t full[STAGES];
  __shared__ alignas(8) uint64_t empty[STAGES];
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  const int tid = threadIdx.x;
  if (tid == 0) {
    for (int s = 0; s < STAGES; ++s) {
      ptx::mbarrier_init(&full[s], 1);
      ptx::mbarrier_init(&empty[s], 64 * CS);
    }
    ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
  }
  cluster.sync();
  if (tid == 0) {
    const uint16_t mask = (1u << CS) - 1;
    for (int k = 0; k < ktiles; ++k) {
      const int s = k % STAGES;
      const uint32_t parity = ((k / STAGES) & 1) ^ 1;
      while (!ptx::mbarrier_try_wait_parity(&empty[s], parity)) {
      }
      ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared,
                                     &full[s], TILE_BYTES);
      const int32_t coords[2] = {k * BK, static_cast<int32_t>(blockIdx.x / CS * BM + rank * (BM / CS))};
      float* dst = &stage[s][rank * (BM / CS) * BK];
      if (CS == 1) {
        ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, dst, tmap, coords,
                                  &full[s]);
      } else {
        ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, dst, tmap, coords,
                                  &full[s], mask);
      }
    }
  } else if (tid >= 32) {
    const int c = tid - 32;
    for (int k = 0; k < ktiles; ++k) {
      const int s = k % STAGES;
      const uint32_t parity = (k / STAGES) & 1;
      while (!ptx::mbarrier_try_wait_parity(&full[s], parity)) {
      }
      for (int e = c; e < BM * BK; e += 64) {
        out[blockIdx.x * BM * BK + e] += stage[s][e];
      }
      for (int q = 0; q < CS; ++q) {
        uint64_t* remote = cluster.map_shared_rank(&empty[s], q);
        ptx::mbarrier_arrive(ptx::sem_release, ptx::scope_cluster, ptx::space_cluster, remote);
      }
    }
  }
  cluster.sync();
}

__global__ void __cluster_dims__(1, 1, 1)
pipeline_1cta(const __grid_constant__ CUtensorMap tmap, float* out, int ktiles) {
  pipeline<1>(&tmap, out, ktiles);
}

__global__ void __cluster_dims__(2, 1, 1)
pipeline_2cta(const __grid_constant__ CUtensorMap tmap, float* out, int ktiles) {
  pipeline<2>(&tmap, out, ktiles);
}
