from .registration import Registration

__all__ = ["Registration"]
