from .listener import TransformerListener
from .transformer_model import TransformerModel
from .split_trf import split_trf_batch
from .trfs2arrays import trfs2arrays


__all__ = ["TransformerListener", "TransformerModel", "split_trf_batch", "trfs2arrays"]
