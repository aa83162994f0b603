"""
DeepLabCut Toolbox (deeplabcut.org)
© A. & M. Mathis Labs

Licensed under GNU Lesser General Public License v3.0
"""
from dlclive.pose_estimation_pytorch.data.image import (
    top_down_crop,
    top_down_crop_torch,
)
