# Copyright (c) OpenMMLab. All rights reserved.
from .blip_caption import BlipCaption
from .blip_grounding import BlipGrounding
from .blip_nlvr import BlipNLVR
from .blip_retrieval import BlipRetrieval
from .blip_vqa import BlipVQA
from .language_model import BertLMHeadModel, XBertEncoder, XBertLMHeadDecoder

__all__ = [
    'BertLMHeadModel', 'BlipCaption', 'BlipGrounding', 'BlipNLVR',
    'BlipRetrieval', 'BlipVQA', 'XBertEncoder', 'XBertLMHeadDecoder'
]
