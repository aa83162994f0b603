# Copyright (c) Microsoft Corporation.
# Licensed under the MIT License.

from .default import DefaultPolicy
from .tensorcore import TensorCorePolicy
