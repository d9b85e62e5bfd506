// Device-side printf and assert, as the emulator's system calls see them.
// Generated PTX: /usr/local/bin/nvcc -arch=sm_80 -ptx printf_assert.cu -o printf_assert.ptx
// (CUDA 13.0, V13.0.88)
#include <cassert>
#include <cstdio>

__global__ void print_values(const float* x, int n, long long big) {
  int i = threadIdx.x;
  if (i < n) {
    printf("tid %d x=%.2f big=%lld hex=%x str=%s |%5d|%-3c|\n", i, x[i], big, i * 255, "ok", i,
           'A' + i);
  }
}

__global__ void check_positive(const int* values) {
  int v = values[threadIdx.x];
  assert(v > 0);
}
