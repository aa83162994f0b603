from bitnet.bit_attention import BitMGQA
from bitnet.bit_ffn import BitFeedForward
from bitnet.bit_linear_new import BitLinearNew
from bitnet.bit_transformer import BitNetTransformer
from bitnet.bitlinear import BitLinear
from bitnet.inference import BitNetInference
from bitnet.replace_hf import replace_linears_in_hf, replace_linears_in_pytorch_model
from bitnet.bit_lora import BitLora
from bitnet.bit_mamba import BitMamba
from bitnet.bit_moe import BitMoE

__all__ = [
    "BitFeedForward",
    "BitNetInference",
    "replace_linears_in_hf",
    "replace_linears_in_pytorch_model",
    "BitNetTransformer",
    "BitMGQA",
    "BitLinearNew",
    "BitLinear",
    "BitLora",
    "BitMamba",
    "BitMoE",
]
