# Copyright (c) OpenMMLab. All rights reserved.
from .inference import inference_model, init_model

__all__ = ['init_model', 'inference_model']
