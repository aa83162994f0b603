#include <torch/extension.h>

#include "knn.h"

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    #ifdef WITH_CUDA
      m.def("knn_check_version", &KnnCheckVersion);
    #endif
    m.def("knn_points_idx", &KNearestNeighborIdx);
    m.def("knn_points_backward", &KNearestNeighborBackward);
}
