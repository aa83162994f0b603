"""Native CUDA/CUTLASS CSR attention kernels."""
