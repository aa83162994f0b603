from magvit2_pytorch.magvit2_pytorch import (
    MagViT2,
    VideoTokenizer
)

from magvit2_pytorch.trainer import (
    VideoTokenizerTrainer
)
