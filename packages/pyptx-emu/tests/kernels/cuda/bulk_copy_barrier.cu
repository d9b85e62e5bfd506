// arch: sm_90a
// libcu++ asynchronous copy: cuda::memcpy_async of a 4 KiB block into shared memory
// completing on a block-scoped cuda::barrier (on sm_90 a cp.async.bulk with an mbarrier
// transaction count), then arrive_and_wait. Each thread writes 3 * v for the mirrored
// element.
#include <cuda/barrier>

#define THREADS 128
#define ELEMS 1024

using block_barrier = cuda::barrier<cuda::thread_scope_block>;

extern "C" __global__ void __launch_bounds__(THREADS)
bulk_copy_barrier(const float *__restrict__ in, float *__restrict__ out) {
    __shared__ __align__(16) float buf[ELEMS];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ block_barrier bar;
    if (threadIdx.x == 0) {
        init(&bar, blockDim.x);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        cuda::memcpy_async(buf, in + blockIdx.x * ELEMS,
                           cuda::aligned_size_t<16>(sizeof(float) * ELEMS), bar);
    }
    bar.arrive_and_wait();
    for (int i = threadIdx.x; i < ELEMS; i += THREADS) {
        out[blockIdx.x * ELEMS + i] = 3.0f * buf[ELEMS - 1 - i];
    }
}
