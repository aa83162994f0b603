#include <cuda_runtime.h>
#include <torch/extension.h>

// A warp-per-row softmax. asm volatile("this comment is not code");

__device__ __forceinline__ float fast_exp(float x) {
  float y;
  asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x * 1.4426950408889634f));
  return y;
}

__device__ float warp_max(float v) {
  for (int offset = 16; offset > 0; offset /= 2)
    v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, offset));
  return v;
}

__global__ void softmax_kernel(const float* in, float* out, int cols) {
  int row = blockIdx.x;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += 32) m = fmaxf(m, in[row * cols + c]);
  m = warp_max(m);
  for (int c = threadIdx.x; c < cols; c += 32) out[row * cols + c] = fast_exp(in[row * cols + c] - m);
}

torch::Tensor softmax_cuda(torch::Tensor x) {
  auto out = torch::empty_like(x);
  softmax_kernel<<<x.size(0), 32>>>(x.data_ptr<float>(), out.data_ptr<float>(), x.size(1));
  cudaDeviceSynchronize();
  return out;
}
