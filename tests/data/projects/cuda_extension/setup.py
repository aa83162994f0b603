from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

setup(
    name="fused_softmax",
    ext_modules=[
        CUDAExtension(
            "fused_softmax",
            ["csrc/binding.cpp", "csrc/softmax_kernel.cu"],
            extra_compile_args={"nvcc": ["-O3", "-gencode", "arch=compute_80,code=sm_80"]},
        )
    ],
    cmdclass={"build_ext": BuildExtension},
)
