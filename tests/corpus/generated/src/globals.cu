// Original test source for the pyptx PTX corpus (Apache-2.0).
// archs: sm_80 sm_90a sm_100a sm_120a
//
// Exercises module-scope variables: __constant__ and __device__ globals with
// initializers (scalars of many types, 1-D/2-D/3-D arrays, structs, pointers
// initialized with the address of other globals and offsets into them,
// function pointer tables, string literals), __managed__ variables, static
// __shared__ arrays and extern __shared__ dynamic shared memory.
#include <cstdint>
#include <cuda_fp16.h>

__constant__ int c_scalar_i32 = -123456;
__constant__ unsigned long long c_scalar_u64 = 0xfedcba9876543210ull;
__constant__ float c_scalar_f32 = 3.25f;
__constant__ double c_scalar_f64 = -2.5e-300;
__constant__ char c_scalar_char = 'Q';
__constant__ short c_scalar_i16 = -7;
__constant__ bool c_flag = true;
__constant__ float c_special[4] = {1.0f / 3.0f, -0.0f, 1e38f, 1.17549435e-38f};

__constant__ float c_weights[8] = {0.5f, -1.25f, 2.0f, 0.125f, 3.0f, -0.75f, 1.0f, 0.0625f};
__constant__ int c_partial[10] = {1, 2, 3};
__constant__ unsigned char c_bytes[13] = {0, 1, 2, 3, 250, 251, 252, 253, 254, 255, 16, 32, 64};
__constant__ double c_matrix[3][4] = {
    {1.0, 2.0, 3.0, 4.0},
    {-1.0, -2.0, -3.0, -4.0},
    {0.5, 0.25, 0.125, 0.0625},
};
__constant__ short c_cube[2][3][4] = {
    {{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}},
    {{-1, -2, -3, -4}, {-5, -6, -7, -8}, {-9, -10, -11, -12}},
};
__constant__ float c_uninitialized[64];

struct Params {
    int count;
    float scale;
    double offset;
    unsigned char tag[5];
    long long big;
};

__constant__ Params c_params = {42, 1.5f, -0.25, {'p', 't', 'x', '!', 0}, -9000000000ll};
__constant__ Params c_param_table[2] = {
    {1, 0.5f, 1.0, {1, 2, 3, 4, 5}, 1ll},
    {2, 0.25f, 2.0, {6, 7, 8, 9, 10}, -2ll},
};

__device__ int g_counter = 0;
__device__ int g_values[16] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3};
__device__ float g_grid[4][4] = {{1.f, 0.f, 0.f, 0.f}, {0.f, 1.f, 0.f, 0.f}, {0.f, 0.f, 1.f, 0.f}, {0.f, 0.f, 0.f, 1.f}};
__device__ __half_raw g_halves[4] = {{0x3c00}, {0xc000}, {0x3800}, {0x7bff}};
__device__ int *g_ptr_to_counter = &g_counter;
__device__ int *g_ptr_into_values = &g_values[5];
__device__ float *g_ptr_into_grid = &g_grid[2][1];
__device__ const float *g_ptr_to_const = &c_weights[3];
__device__ int *g_ptr_table[3] = {&g_counter, &g_values[0], &g_values[15]};
__device__ const char *g_message = "hello from the corpus";
__device__ const char *g_messages[3] = {"alpha", "beta", "gamma"};
__device__ char g_text[] = "inline char array";
__device__ unsigned long long g_zeroed[32];
__device__ volatile int g_volatile_flag = 1;

struct Node {
    int value;
    Node *next;
};

__device__ Node g_node_last = {30, nullptr};
__device__ Node g_node_mid = {20, &g_node_last};
__device__ Node g_nodes[2] = {
    {10, &g_node_mid},
    {15, &g_node_last},
};
__device__ Node *g_head = &g_nodes[0];

__device__ __noinline__ int fp_inc(int x) { return x + 1; }
__device__ __noinline__ int fp_dbl(int x) { return x * 2; }
__device__ __noinline__ int fp_neg(int x) { return -x; }

typedef int (*int_op)(int);
__device__ int_op g_ops[3] = {fp_inc, fp_dbl, fp_neg};

__managed__ int m_result = 17;
__managed__ float m_array[8];

static __device__ int s_file_local = 99;
namespace corpus_ns {
__device__ int namespaced_value = 5;
}

__global__ void k_read_constants(float *out, double *dout, int idx) {
    int i = threadIdx.x;
    float acc = c_scalar_f32 * (float)c_scalar_i32;
    acc += c_weights[i & 7] * c_params.scale;
    acc += (float)c_cube[i & 1][i % 3][i & 3];
    acc += c_uninitialized[i & 63];
    acc += (float)c_partial[idx % 10] + (float)c_bytes[i % 13];
    acc += c_flag ? (float)c_scalar_char : (float)c_scalar_i16;
    acc += c_special[i & 3];
    out[i] = acc;
    dout[i] = c_matrix[i % 3][idx & 3] + c_scalar_f64 + c_params.offset + (double)c_scalar_u64 +
              (double)c_params.big + (double)c_param_table[idx & 1].tag[i % 5];
}

__global__ void k_globals(int *out, float *fout) {
    int i = threadIdx.x;
    atomicAdd(g_ptr_to_counter, 1);
    int sum = 0;
    for (const Node *n = g_head; n != nullptr; n = n->next) {
        sum += n->value;
    }
    out[i] = sum + *g_ptr_into_values + *g_ptr_table[i % 3] + g_ops[i % 3](i) + s_file_local +
             corpus_ns::namespaced_value + g_message[i % 21] + g_messages[i % 3][0] + g_text[i % 17];
    fout[i] = *g_ptr_into_grid + g_grid[i & 3][(i >> 2) & 3] + *g_ptr_to_const + __half2float(__half(g_halves[i & 3]));
    g_zeroed[i & 31] += (unsigned long long)i;
    if (g_volatile_flag) {
        m_result += i;
        m_array[i & 7] = (float)i;
    }
}

extern __shared__ float4 dyn_smem[];

__global__ void k_shared(const float *in, float *out, int n) {
    __shared__ float tile[32][33];
    __shared__ int hist[256];
    __shared__ __align__(16) unsigned char bytes[1024];
    float *dyn = reinterpret_cast<float *>(dyn_smem);

    int tx = threadIdx.x & 31;
    int ty = threadIdx.x >> 5;
    for (int j = threadIdx.x; j < 256; j += blockDim.x) {
        hist[j] = 0;
    }
    tile[ty & 31][tx] = in[(blockIdx.x * blockDim.x + threadIdx.x) % n];
    dyn[threadIdx.x] = tile[ty & 31][tx] * 2.0f;
    bytes[threadIdx.x & 1023] = (unsigned char)threadIdx.x;
    __syncthreads();
    atomicAdd(&hist[bytes[(threadIdx.x * 7) & 1023]], 1);
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = tile[tx][ty & 31] + dyn[(threadIdx.x + 1) % blockDim.x] + (float)hist[threadIdx.x & 255];
}

__global__ void k_shared_dynamic_typed(double *out) {
    extern __shared__ double dyn_d[];
    dyn_d[threadIdx.x] = (double)threadIdx.x * 0.5;
    __syncthreads();
    out[threadIdx.x] = dyn_d[blockDim.x - 1 - threadIdx.x];
}
