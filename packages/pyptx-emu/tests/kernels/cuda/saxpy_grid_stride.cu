// arch: sm_80
// y[i] = a * x[i] + y[i] over a grid-stride loop (fma.rn.f32 after nvcc's contraction).
extern "C" __global__ void saxpy_grid_stride(int n, float a, const float *__restrict__ x,
                                             float *__restrict__ y) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        y[i] = a * x[i] + y[i];
    }
}
