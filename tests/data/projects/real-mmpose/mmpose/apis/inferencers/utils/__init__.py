# Copyright (c) OpenMMLab. All rights reserved.
from .default_det_models import default_det_models
from .get_model_alias import get_model_aliases

__all__ = ['default_det_models', 'get_model_aliases']
