from .linear import CompressedFP8Linear, CompressedINT8Linear, CompressedLinear, QuantizedLinear

__all__ = [
    "CompressedFP8Linear", "CompressedINT8Linear", "CompressedLinear", "QuantizedLinear",
]
