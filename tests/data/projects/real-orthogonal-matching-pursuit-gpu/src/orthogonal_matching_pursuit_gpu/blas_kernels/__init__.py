from orthogonal_matching_pursuit_gpu.blas_kernels._kernels import (
    argmax_blast,
    update_projections_blast,
    update_D_mybest_blast,
    ppsv,
    project_argmax,
)
