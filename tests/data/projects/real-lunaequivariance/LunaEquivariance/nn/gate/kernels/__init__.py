"""Gate CUDA forward and first, second, and third gradients."""
