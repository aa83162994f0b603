from AK_SSL.vision.models.modules.transformations.simclr import \
    SimCLRViewTransform

__all__ = ["SimCLRViewTransform"]
