"""Generated CUDA kernels for channel-preserving UUU graph convolution."""
