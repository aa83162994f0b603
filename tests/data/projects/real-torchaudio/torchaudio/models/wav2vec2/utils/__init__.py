from .import_fairseq import import_fairseq_model
from .import_huggingface import import_huggingface_model

__all__ = [
    "import_huggingface_model",
    "import_fairseq_model",
]
