from xturing.engines.quant_utils.quant import QuantLinear, autotune_warmup, make_quant
