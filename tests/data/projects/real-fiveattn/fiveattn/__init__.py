"""FiveAttn: 5-Component Attention and MHA 100M Transformers with Cut-Cross-Entropy."""

__version__ = "0.1.1"

from fiveattn.config import ModelConfig, TrainConfig
from fiveattn.model import (
    RMSNorm,
    SwiGLU,
    RotaryEmbedding,
    MultiHeadAttention,
    FiveComponentAttention,
    TransformerBlock,
    TransformerLM,
)
from fiveattn.loss import (
    CutCrossEntropyLoss,
    compute_cut_cross_entropy,
    chunked_linear_cross_entropy,
)
from fiveattn.tokenizer import SmolLMTokenizer, get_tokenizer
from fiveattn.dataset import TinyStoriesDataset, get_dataloader
from fiveattn.train import train, evaluate
from fiveattn.benchmark import compare_models, verify_compilation
from fiveattn.generate import generate_text, load_model_from_checkpoint

__all__ = [
    "ModelConfig",
    "TrainConfig",
    "RMSNorm",
    "SwiGLU",
    "RotaryEmbedding",
    "MultiHeadAttention",
    "FiveComponentAttention",
    "TransformerBlock",
    "TransformerLM",
    "CutCrossEntropyLoss",
    "compute_cut_cross_entropy",
    "chunked_linear_cross_entropy",
    "SmolLMTokenizer",
    "get_tokenizer",
    "TinyStoriesDataset",
    "get_dataloader",
    "train",
    "evaluate",
    "compare_models",
    "verify_compilation",
    "generate_text",
    "load_model_from_checkpoint",
    "__version__",
]
