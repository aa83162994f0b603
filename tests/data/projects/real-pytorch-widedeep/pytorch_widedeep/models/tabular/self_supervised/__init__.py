from pytorch_widedeep.models.tabular.self_supervised.encoder_decoder_model import (
    EncoderDecoderModel,
)
from pytorch_widedeep.models.tabular.self_supervised.contrastive_denoising_model import (
    ContrastiveDenoisingModel,
)
