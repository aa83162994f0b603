"""CAREamics CARE model descriptions."""

CARE = "CARE"

CARE_DESCRIPTION = (
    "Content-aware image restoration (CARE) is a deep-learning-based "
    "algorithm that uses a U-Net architecture to restore images. CARE "
    "is a supervised algorithm that requires pairs of noisy and "
    "clean images to train the network. The algorithm learns to "
    "predict the clean image from the noisy image. CARE is "
    "particularly useful for denoising images acquired in low-light "
    "conditions, such as fluorescence microscopy images."
)
