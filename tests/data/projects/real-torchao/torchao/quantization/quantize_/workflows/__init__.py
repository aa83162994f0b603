from .float8.float8_packing_format import (
    Float8PackingFormat,
)
from .float8.float8_sparse_2x4_1d_data_1d_metadata_tensor import (
    Float8Sparse2x4_1DData1DMetadataTensor,
)
from .float8.float8_sparse_2x4_2d_data_2d_metadata_tensor import (
    Float8Sparse2x4_2DData2DMetadataTensor,
)
from .float8.float8_tensor import (
    Float8Tensor,
    QuantizeTensorToFloat8Kwargs,
)
from .int4.int4_choose_qparams_algorithm import Int4ChooseQParamsAlgorithm
from .int4.int4_packing_format import Int4PackingFormat
from .int4.int4_plain_int32_tensor import (
    Int4PlainInt32Tensor,
)
from .int4.int4_preshuffled_tensor import (
    Int4PreshuffledTensor,
)
from .int4.int4_tensor import (
    Int4Tensor,
)
from .int4.int4_tile_packed_to_4d_tensor import Int4TilePackedTo4dTensor
from .int8.int8_tensor import (
    Int8Tensor,
    QuantizeTensorToInt8Kwargs,
)
from .intx.intx_choose_qparams_algorithm import IntxChooseQParamsAlgorithm
from .intx.intx_opaque_tensor import (
    IntxOpaqueTensor,
)
from .intx.intx_packing_format import (
    IntxPackingFormat,
)
from .intx.intx_unpacked_to_int8_tensor import (
    IntxUnpackedToInt8Tensor,
)
from .nf4.nf4_tensor import NF4Tensor, to_nf4

Sparse2x4CUTLASSFloat8Tensor = Float8Sparse2x4_2DData2DMetadataTensor

__all__ = [
    "Float8PackingFormat",
    "Float8Sparse2x4_1DData1DMetadataTensor",
    "Float8Sparse2x4_2DData2DMetadataTensor",
    "Float8Tensor",
    "Int4ChooseQParamsAlgorithm",
    "Int4PackingFormat",
    "Int4PlainInt32Tensor",
    "Int4PreshuffledTensor",
    "Int4Tensor",
    "Int4TilePackedTo4dTensor",
    "Int8Tensor",
    "IntxChooseQParamsAlgorithm",
    "IntxOpaqueTensor",
    "IntxPackingFormat",
    "IntxUnpackedToInt8Tensor",
    "NF4Tensor",
    "QuantizeTensorToFloat8Kwargs",
    "QuantizeTensorToInt8Kwargs",
    "Sparse2x4CUTLASSFloat8Tensor",
    "to_nf4",
]
