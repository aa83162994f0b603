"""NormActivation forward CUDA and shared backward CUDA with bias reduction."""
