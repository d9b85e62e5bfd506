// arch: sm_80
// Dot product: grid-stride partial sums, a __shfl_down_sync warp reduction, then one float
// atomicAdd per warp into *result.
extern "C" __global__ void dot_atomic(const float *__restrict__ x, const float *__restrict__ y,
                                      int n, float *__restrict__ result) {
    float s = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        s += x[i] * y[i];
    }
    for (int offset = 16; offset > 0; offset /= 2) {
        s += __shfl_down_sync(0xffffffffu, s, offset);
    }
    if ((threadIdx.x & 31) == 0) {
        atomicAdd(result, s);
    }
}
