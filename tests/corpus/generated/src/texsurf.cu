// Original test source for the pyptx PTX corpus (Apache-2.0).
// archs: sm_80 sm_90a sm_100a sm_120a
// g-archs: sm_120a
//
// Exercises bindless textures and surfaces (cudaTextureObject_t /
// cudaSurfaceObject_t): tex.1d/2d/3d/a1d/a2d/cube fetches, gather, explicit
// LOD and gradients, integer and normalized reads, surface loads (suld) and
// stores (sust) with boundary modes, and txq/suq queries.
#include <cstdint>
#include <cuda_runtime.h>

__global__ void k_texture_fetch(cudaTextureObject_t t1, cudaTextureObject_t t2, cudaTextureObject_t t3,
                                cudaTextureObject_t tl1, cudaTextureObject_t tl2, cudaTextureObject_t tcube,
                                cudaTextureObject_t tlin, float4 *out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) {
        return;
    }
    float u = (x + 0.5f) / (float)w;
    float v = (y + 0.5f) / (float)h;
    float4 acc = tex2D<float4>(t2, u, v);
    float a = tex1Dfetch<float>(tlin, x + y * w);
    float b = tex1D<float>(t1, u);
    float4 c = tex3D<float4>(t3, u, v, 0.5f);
    float d = tex1DLayered<float>(tl1, u, y & 3);
    float4 e = tex2DLayered<float4>(tl2, u, v, x & 7);
    float4 f = texCubemap<float4>(tcube, u - 0.5f, v - 0.5f, 1.0f);
    float4 g = tex2DLod<float4>(t2, u, v, 1.5f);
    float4 hh = tex2DGrad<float4>(t2, u, v, make_float2(0.01f, 0.0f), make_float2(0.0f, 0.01f));
    float4 gather = tex2Dgather<float4>(t2, u, v, 2);
    float lod3 = tex3DLod<float4>(t3, u, v, 0.25f, 2.0f).x;
    acc.x += a + b + c.x + d + e.y + f.z + g.w + hh.x + gather.y + lod3;
    out[y * w + x] = acc;
}

__global__ void k_texture_int(cudaTextureObject_t ti, cudaTextureObject_t tuc, int4 *out, uchar4 *out2, int n) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= n) {
        return;
    }
    int4 v = tex1Dfetch<int4>(ti, x);
    uchar4 c = tex2D<uchar4>(tuc, (float)x, 0.0f);
    short2 s = tex1Dfetch<short2>(ti, x + 1);
    v.x += s.x + s.y;
    out[x] = v;
    out2[x] = c;
}

__global__ void k_surfaces(cudaSurfaceObject_t s1, cudaSurfaceObject_t s2, cudaSurfaceObject_t s3,
                           cudaSurfaceObject_t sl2, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) {
        return;
    }
    float4 p = surf2Dread<float4>(s2, x * (int)sizeof(float4), y);
    float q = surf1Dread<float>(s1, x * 4, cudaBoundaryModeClamp);
    uchar4 r = surf3Dread<uchar4>(s3, x * 4, y, 1, cudaBoundaryModeZero);
    int2 lay = surf2DLayeredread<int2>(sl2, x * 8, y, 2);
    p.x += q + (float)r.x + (float)lay.y;
    surf2Dwrite(p, s2, x * (int)sizeof(float4), y);
    surf1Dwrite(q * 2.0f, s1, x * 4, cudaBoundaryModeTrap);
    surf3Dwrite(make_uchar4(r.w, r.z, r.y, r.x), s3, x * 4, y, 0);
    surf2DLayeredwrite(make_int2(lay.y, lay.x), sl2, x * 8, y, 3, cudaBoundaryModeClamp);
    unsigned short us = surf2Dread<unsigned short>(s2, x * 2, y);
    surf2Dwrite<unsigned short>((unsigned short)(us + 1), s2, x * 2, y);
}

__global__ void k_queries(cudaTextureObject_t tex, cudaSurfaceObject_t surf, int *out) {
    int tw, th, td, tfmt, tlevels, sw, sh;
    asm("txq.width.b32 %0, [%1];" : "=r"(tw) : "l"(tex));
    asm("txq.height.b32 %0, [%1];" : "=r"(th) : "l"(tex));
    asm("txq.depth.b32 %0, [%1];" : "=r"(td) : "l"(tex));
    asm("txq.channel_data_type.b32 %0, [%1];" : "=r"(tfmt) : "l"(tex));
    asm("txq.num_mipmap_levels.b32 %0, [%1];" : "=r"(tlevels) : "l"(tex));
    asm("suq.width.b32 %0, [%1];" : "=r"(sw) : "l"(surf));
    asm("suq.height.b32 %0, [%1];" : "=r"(sh) : "l"(surf));
    out[threadIdx.x] = tw + th + td + tfmt + tlevels + sw + sh;
}
