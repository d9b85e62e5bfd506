// arch: sm_80
// Double-buffered global -> shared copies with cp.async (the __pipeline_* primitives):
// tile t + 1 is in flight while tile t is consumed. A tile is 128 threads x 16 bytes; the
// last tile may be partial (cp.async with a source size, the rest zero-filled). Each thread
// writes 2 * v + 1 for the 16-byte chunk of the mirrored thread (so the data crosses threads).
#include <cuda_pipeline.h>

#define THREADS 128
#define CHUNK 4  // floats per thread and tile

extern "C" __global__ void __launch_bounds__(THREADS)
cp_async_double_buffer(const float *__restrict__ x, float *__restrict__ out, int n,
                       int tiles_per_block) {
    __shared__ __align__(16) float buf[2][THREADS * CHUNK];
    int first = blockIdx.x * tiles_per_block;
    auto issue = [&](int tile, int stage) {
        int start = (tile * THREADS + threadIdx.x) * CHUNK;
        int valid = min(max(n - start, 0), CHUNK);
        const float *src = valid > 0 ? x + start : x;
        __pipeline_memcpy_async(&buf[stage][threadIdx.x * CHUNK], src, 16,
                                (CHUNK - valid) * sizeof(float));
    };
    issue(first, 0);
    __pipeline_commit();
    for (int t = 0; t < tiles_per_block; ++t) {
        if (t + 1 < tiles_per_block) {
            issue(first + t + 1, (t + 1) & 1);
        }
        __pipeline_commit();
        __pipeline_wait_prior(1);
        __syncthreads();
        const float *src = &buf[t & 1][(THREADS - 1 - threadIdx.x) * CHUNK];
        int start = ((first + t) * THREADS + threadIdx.x) * CHUNK;
        for (int k = 0; k < CHUNK; ++k) {
            if (start + k < n) {
                out[start + k] = 2.0f * src[k] + 1.0f;
            }
        }
        __syncthreads();
    }
}
