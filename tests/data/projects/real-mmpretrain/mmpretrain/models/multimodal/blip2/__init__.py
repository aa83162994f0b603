# Copyright (c) OpenMMLab. All rights reserved.
from .blip2_caption import Blip2Caption
from .blip2_opt_vqa import Blip2VQA
from .blip2_retriever import Blip2Retrieval
from .modeling_opt import OPTForCausalLM
from .Qformer import Qformer

__all__ = [
    'Blip2Caption', 'Blip2Retrieval', 'Blip2VQA', 'OPTForCausalLM', 'Qformer'
]
