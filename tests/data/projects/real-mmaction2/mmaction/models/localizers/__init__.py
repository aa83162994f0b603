# Copyright (c) OpenMMLab. All rights reserved.
from .bmn import BMN
from .bsn import PEM, TEM
from .drn.drn import DRN
from .tcanet import TCANet

__all__ = ['TEM', 'PEM', 'BMN', 'TCANet', 'DRN']
