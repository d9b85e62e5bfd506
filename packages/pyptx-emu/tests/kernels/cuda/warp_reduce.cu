// arch: sm_80
// Per-warp reductions: a float butterfly sum with __shfl_xor_sync (every lane ends with the
// sum) and an int max with __shfl_down_sync (lane 0 ends with the max).
extern "C" __global__ void warp_reduce(const float *__restrict__ x, const int *__restrict__ v,
                                       float *__restrict__ sums, int *__restrict__ maxes,
                                       float *__restrict__ lane_sums) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int warp = i / 32;
    float s = x[i];
    for (int offset = 16; offset > 0; offset /= 2) {
        s += __shfl_xor_sync(0xffffffffu, s, offset);
    }
    int m = v[i];
    for (int offset = 16; offset > 0; offset /= 2) {
        m = max(m, __shfl_down_sync(0xffffffffu, m, offset));
    }
    lane_sums[i] = s;
    if ((threadIdx.x & 31) == 0) {
        sums[warp] = s;
        maxes[warp] = m;
    }
}
