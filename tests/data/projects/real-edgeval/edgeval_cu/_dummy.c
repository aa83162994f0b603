/* Dummy C extension — exists only to trigger setuptools build_ext,
   which in turn compiles the real CUDA kernels via CudaBuildExt. */
