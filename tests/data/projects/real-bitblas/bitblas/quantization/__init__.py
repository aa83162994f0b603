# Copyright (c) Microsoft Corporation.
# Licensed under the MIT License.
from .quantization import (
    _tir_packed_int_to_int_convert,  # noqa: F401
    _tir_packed_to_signed_convert,  # noqa: F401
    _tir_packed_to_unsigned_convert,  # noqa: F401
    _tir_packed_to_fp4_to_f16,  # noqa: F401
    _tir_u8_to_f8_e4m3_to_f16,  # noqa: F401
    _tir_packed_to_unsigned_convert_with_zeros,  # noqa: F401
)

from .utils import (
    gen_quant4,  # noqa: F401
    general_compress,  # noqa: F401
    interleave_weight,  # noqa: F401
)
