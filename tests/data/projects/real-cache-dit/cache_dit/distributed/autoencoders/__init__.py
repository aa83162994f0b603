from .dispatch import parallelize_autoencoder

__all__ = ["parallelize_autoencoder"]
