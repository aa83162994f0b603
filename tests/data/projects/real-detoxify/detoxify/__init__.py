from .detoxify import (
    Detoxify,
    multilingual_toxic_xlm_r,
    toxic_albert,
    toxic_bert,
    unbiased_albert,
    unbiased_toxic_roberta,
)

__all__ = [
    "Detoxify",
    "toxic_bert",
    "toxic_albert",
    "unbiased_toxic_roberta",
    "unbiased_albert",
    "multilingual_toxic_xlm_r",
]
