// arch: sm_80
// Block sum through shared memory: a tree halving the active threads, __syncthreads between
// steps. One partial sum per block.
#define THREADS 256

extern "C" __global__ void __launch_bounds__(THREADS)
block_reduce(const float *__restrict__ x, float *__restrict__ partial, int n) {
    __shared__ float buf[THREADS];
    int i = blockIdx.x * THREADS + threadIdx.x;
    buf[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) {
            buf[threadIdx.x] += buf[threadIdx.x + s];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = buf[0];
    }
}
