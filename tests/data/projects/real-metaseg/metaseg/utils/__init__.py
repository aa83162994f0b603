# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.

# This source code is licensed under the license found in the
# LICENSE file in the root directory of this source tree.

from .data_utils import load_box as load_box
from .data_utils import load_image as load_image
from .data_utils import load_mask as load_mask
from .data_utils import load_server_image as load_server_image
from .data_utils import load_video as load_video
from .data_utils import multi_boxes as multi_boxes
from .data_utils import plt_load_box as plt_load_box
from .data_utils import plt_load_mask as plt_load_mask
from .data_utils import show_image as show_image
from .model_file_downloader import download_model as download_model
from .onnx import SamOnnxModel as SamOnnxModel
from .transforms import ResizeLongestSide as ResizeLongestSide
