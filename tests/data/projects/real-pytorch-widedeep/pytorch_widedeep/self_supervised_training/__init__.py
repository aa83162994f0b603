from pytorch_widedeep.self_supervised_training.encoder_decoder_trainer import (
    EncoderDecoderTrainer,
)
from pytorch_widedeep.self_supervised_training.contrastive_denoising_trainer import (
    ContrastiveDenoisingTrainer,
)
