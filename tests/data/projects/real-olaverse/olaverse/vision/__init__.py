from olaverse.vision.prism import PrismUpscaler, PrismDenoiser, PrismSteganography

__all__ = [
    "PrismUpscaler",
    "PrismDenoiser",
    "PrismSteganography",
]
