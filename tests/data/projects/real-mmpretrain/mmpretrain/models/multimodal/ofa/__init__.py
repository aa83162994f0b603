# Copyright (c) OpenMMLab. All rights reserved.
from .ofa import OFA
from .ofa_modules import OFADecoder, OFAEncoder, OFAEncoderDecoder

__all__ = ['OFAEncoderDecoder', 'OFA', 'OFAEncoder', 'OFADecoder']
