# Copyright (c) OpenMMLab. All rights reserved.
from .llava import Llava
from .modules import LlavaLlamaForCausalLM

__all__ = ['Llava', 'LlavaLlamaForCausalLM']
