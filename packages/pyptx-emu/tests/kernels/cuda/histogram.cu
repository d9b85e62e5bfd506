// arch: sm_80
// 64-bin histogram: atomicAdd into a per-block shared histogram, then one global atomicAdd
// per bin and block.
#define BINS 64

extern "C" __global__ void histogram(const unsigned char *__restrict__ data, int n,
                                     unsigned int *__restrict__ hist) {
    __shared__ unsigned int local[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) {
        local[b] = 0;
    }
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        atomicAdd(&local[data[i] % BINS], 1u);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) {
        if (local[b] != 0) {
            atomicAdd(&hist[b], local[b]);
        }
    }
}
