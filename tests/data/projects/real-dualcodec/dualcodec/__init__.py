# Copyright (c) 2025 Amphion.
#
# This source code is licensed under the MIT license found in the
# LICENSE file in the root directory of this source tree.
from .infer.dualcodec.get_model import (
    get_model,
)  # , model_id_to_fname, model_id_to_cfgname
from .infer.dualcodec.inference_with_semantic import Inference

from .model_codec import DualCodec
