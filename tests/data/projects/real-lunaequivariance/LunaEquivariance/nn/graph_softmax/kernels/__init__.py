"""Native graph softmax kernels."""
