# ------------------------------------------------------------------------
# RF-DETR
# Copyright (c) 2025 Roboflow. All Rights Reserved.
# Licensed under the Apache License, Version 2.0 [see LICENSE for details]
# ------------------------------------------------------------------------
# Copied from LW-DETR (https://github.com/Atten4Vis/LW-DETR)
# Copyright (c) 2024 Baidu. All Rights Reserved.
# ------------------------------------------------------------------------
# Copied from Conditional DETR (https://github.com/Atten4Vis/ConditionalDETR)
# Copyright (c) 2021 Microsoft. All Rights Reserved.
# ------------------------------------------------------------------------
# Copied from DETR (https://github.com/facebookresearch/detr)
# Copyright (c) Facebook, Inc. and its affiliates. All Rights Reserved.
# ------------------------------------------------------------------------

from rfdetr.models._defaults import MODEL_DEFAULTS, ModelDefaults
from rfdetr.models._types import BuilderArgs
from rfdetr.models.criterion import SetCriterion
from rfdetr.models.lwdetr import build_criterion_from_config, build_model, build_model_from_config
from rfdetr.models.math import MLP
from rfdetr.models.postprocess import PostProcess
from rfdetr.models.weights import apply_lora, load_pretrain_weights

__all__ = [
    "BuilderArgs",
    "MODEL_DEFAULTS",
    "ModelDefaults",
    "SetCriterion",
    "build_criterion_from_config",
    "build_model",
    "build_model_from_config",
    "MLP",
    "PostProcess",
    "load_pretrain_weights",
    "apply_lora",
]
