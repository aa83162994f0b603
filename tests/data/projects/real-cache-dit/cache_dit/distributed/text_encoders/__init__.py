from .dispatch import parallelize_text_encoder

__all__ = ["parallelize_text_encoder"]
