# Copyright (c) OpenMMLab. All rights reserved.
from .builder import OPERATORS, build_operators
from .corr_lookup import CorrLookup
from .warp import Warp

__all__ = ['Warp', 'OPERATORS', 'build_operators', 'CorrLookup']
