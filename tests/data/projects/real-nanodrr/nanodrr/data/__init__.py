from .demo import download_deepfluoro
from .subject import Subject

__all__ = ["download_deepfluoro", "Subject"]
