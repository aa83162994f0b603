from .patch_sampler import apply_patch_sampler

__all__ = ["apply_patch_sampler"]
