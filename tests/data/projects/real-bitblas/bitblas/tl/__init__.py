# Copyright (c) Microsoft Corporation.
# Licensed under the MIT License.

from .utils import (
    mma_store_index_map,  # noqa: F401
    get_ldmatrix_offset,  # noqa: F401
)

from .mma_macro_generator import (
    TensorCoreIntrinEmitter,  # noqa: F401
    TensorCoreIntrinEmitterWithLadderTransform,  # noqa: F401
)
