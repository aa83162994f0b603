from .model import AnimeSpeakerEmbedding

__all__ = ["AnimeSpeakerEmbedding"]
