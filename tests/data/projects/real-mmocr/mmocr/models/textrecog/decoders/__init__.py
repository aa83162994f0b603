# Copyright (c) OpenMMLab. All rights reserved.
from .abi_fuser import ABIFuser
from .abi_language_decoder import ABILanguageDecoder
from .abi_vision_decoder import ABIVisionDecoder
from .aster_decoder import ASTERDecoder
from .base import BaseDecoder
from .crnn_decoder import CRNNDecoder
from .master_decoder import MasterDecoder
from .nrtr_decoder import NRTRDecoder
from .position_attention_decoder import PositionAttentionDecoder
from .robust_scanner_fuser import RobustScannerFuser
from .sar_decoder import ParallelSARDecoder, SequentialSARDecoder
from .sar_decoder_with_bs import ParallelSARDecoderWithBS
from .sequence_attention_decoder import SequenceAttentionDecoder
from .svtr_decoder import SVTRDecoder

__all__ = [
    'CRNNDecoder', 'ParallelSARDecoder', 'SequentialSARDecoder',
    'ParallelSARDecoderWithBS', 'NRTRDecoder', 'BaseDecoder',
    'SequenceAttentionDecoder', 'PositionAttentionDecoder',
    'ABILanguageDecoder', 'ABIVisionDecoder', 'MasterDecoder',
    'RobustScannerFuser', 'ABIFuser', 'SVTRDecoder', 'ASTERDecoder'
]
