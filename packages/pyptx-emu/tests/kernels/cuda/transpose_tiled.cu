// arch: sm_80
// Out-of-place transpose of a rows x cols float matrix through a 32 x 33 shared tile (the
// padding column keeps a warp's column reads off a single bank). Blocks are 32 x 8 threads.
#define TILE 32
#define ROWS 8

extern "C" __global__ void transpose_tiled(const float *__restrict__ in, float *__restrict__ out,
                                           int rows, int cols) {
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS) {
        if (x < cols && y + j < rows) {
            tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
        }
    }
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS) {
        if (x < rows && y + j < cols) {
            out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
        }
    }
}
