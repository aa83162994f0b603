from suffix_gpu.proposer import SuffixGPUDrafter

__version__ = "0.1.3"
__all__ = ["SuffixGPUDrafter", "__version__"]
