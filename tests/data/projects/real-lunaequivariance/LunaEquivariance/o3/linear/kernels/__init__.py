"""Linear contraction programs, CUDA generators and strided layouts."""
