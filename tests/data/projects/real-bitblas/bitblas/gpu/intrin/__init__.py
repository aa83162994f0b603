# Copyright (c) Microsoft Corporation.
# Licensed under the MIT License.
from .lop3 import get_lop3_intrin_group  # noqa: F401
from .hip import get_mfma_intrin_group  # noqa: F401
