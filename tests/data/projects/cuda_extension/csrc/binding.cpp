#include <torch/extension.h>

torch::Tensor softmax_cuda(torch::Tensor x);

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("softmax", &softmax_cuda, "row softmax (CUDA)");
}
