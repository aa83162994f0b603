from .utils import create_dataset
__all__ = [create_dataset]