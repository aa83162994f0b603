from pytorch_widedeep.models.text.rnns import (
    BasicRNN,
    AttentiveRNN,
    StackedAttentiveRNN,
)
from pytorch_widedeep.models.text.huggingface_transformers import HFModel
