"""CAREamics N2N model descriptions."""

N2N = "Noise2Noise"

N2N_DESCRIPTION = (
    "Noise2Noise is a deep-learning-based algorithm that uses a U-Net "
    "architecture to restore images. Noise2Noise is a self-supervised "
    "algorithm that requires only noisy images to train the network. "
    "The algorithm learns to predict the clean image from the noisy "
    "image. Noise2Noise is particularly useful when clean images are "
    "not available for training."
)
