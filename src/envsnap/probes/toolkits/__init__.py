"""The ``toolkits`` section: system CUDA toolkits (cuda.py), cuDNN and NCCL (cuda_libs.py) and the
installed ROCm user space (rocm.py, also read by the AMD probe), gathered by probe.py."""
