# Copyright (c) TorchGeo Contributors. All rights reserved.
# Licensed under the MIT License.

"""TorchGeo losses."""

from .qr import QRLoss, RQLoss

__all__ = ('QRLoss', 'RQLoss')
