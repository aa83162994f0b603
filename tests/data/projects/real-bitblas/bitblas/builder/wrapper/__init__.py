# Copyright (c) Microsoft Corporation.
# Licensed under the MIT License.
from .tir import TIRWrapper  # noqa: F401
from .tl import TLWrapper  # noqa: F401
