"""
DeepLabCut Toolbox (deeplabcut.org)
© A. & M. Mathis Labs

Licensed under GNU Lesser General Public License v3.0
"""

from dlclive.pose_estimation_pytorch.models.model import PoseModel
from dlclive.pose_estimation_pytorch.models.detectors import DETECTORS, BaseDetector
