// arch: sm_80
// Calls to __noinline__ device functions (.func with .param passing, call.uni): a loop
// with a data-dependent trip count, and a float function with several arguments.
extern "C" __device__ __noinline__ unsigned int collatz_steps(unsigned int v) {
    unsigned int steps = 0;
    while (v > 1) {
        v = (v & 1) ? 3 * v + 1 : v / 2;
        ++steps;
    }
    return steps;
}

extern "C" __device__ __noinline__ float clamp_scale(float v, float lo, float hi, float s) {
    return fminf(fmaxf(v, lo), hi) * s;
}

extern "C" __global__ void noinline_call(const unsigned int *__restrict__ seeds,
                                         const float *__restrict__ x,
                                         unsigned int *__restrict__ steps,
                                         float *__restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        steps[i] = collatz_steps(seeds[i]);
        y[i] = clamp_scale(x[i], -1.0f, 2.0f, 4.0f);
    }
}
