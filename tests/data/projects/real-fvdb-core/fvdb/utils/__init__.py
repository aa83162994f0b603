# Copyright Contributors to the OpenVDB Project
# SPDX-License-Identifier: Apache-2.0
#

"""Image metrics and build helpers for fVDB extensions."""

from . import metrics
from ._build_ext import fvdbCudaExtension

__all__ = ["metrics", "fvdbCudaExtension"]
