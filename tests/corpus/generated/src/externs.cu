// Original test source for the pyptx PTX corpus (Apache-2.0).
// archs: sm_90a
// opts: O3
// nvcc-flags: -rdc=true
//
// Relocatable device code that references device functions and variables
// defined in another translation unit, so the PTX carries .extern .func,
// .extern .global and .extern .const declarations. Such a module only
// assembles as a relocatable object (ptxas -c); a plain ptxas run rejects it
// with an unresolved-extern error, which is expected.
#include <cstdint>

extern __device__ int ext_counter;
extern __device__ float ext_table[64];
extern __constant__ double ext_coeffs[4];
extern __device__ int ext_transform(int x, int y);
extern __device__ float ext_reduce(const float *data, int n);
extern __device__ void ext_log_event(unsigned code);
extern __device__ unsigned long long ext_mix(unsigned long long a, float b, double c, short d);

__device__ int local_defined = 3;

__global__ void k_uses_externs(const int *in, int *out, float *fout, double *dout, unsigned long long *uout) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[t];
    atomicAdd(&ext_counter, v);
    out[t] = ext_transform(v, t) + local_defined;
    fout[t] = ext_reduce(ext_table, 64) + ext_table[t & 63];
    dout[t] = ext_coeffs[t & 3] * (double)v;
    uout[t] = ext_mix((unsigned long long)v, (float)t, dout[t], (short)t);
    if (v < 0) {
        ext_log_event((unsigned)t);
    }
}
