from parakeet_mlx.alignment import (
    AlignedResult,
    AlignedSentence,
    AlignedToken,
    SentenceConfig,
)
from parakeet_mlx.parakeet import (
    BaseParakeet,
    Beam,
    DecodingConfig,
    Greedy,
    ParakeetCTC,
    ParakeetCTCArgs,
    ParakeetRNNT,
    ParakeetRNNTArgs,
    ParakeetTDT,
    ParakeetTDTArgs,
    ParakeetTDTCTC,
    ParakeetTDTCTCArgs,
    StreamingParakeet,
)
from parakeet_mlx.utils import from_pretrained

__all__ = [
    "DecodingConfig",
    "SentenceConfig",
    "Beam",
    "Greedy",
    "ParakeetTDTArgs",
    "ParakeetTDT",
    "ParakeetRNNT",
    "ParakeetRNNTArgs",
    "ParakeetCTC",
    "ParakeetCTCArgs",
    "ParakeetTDTCTC",
    "ParakeetTDTCTCArgs",
    "BaseParakeet",
    "StreamingParakeet",
    "from_pretrained",
    "AlignedResult",
    "AlignedSentence",
    "AlignedToken",
]
