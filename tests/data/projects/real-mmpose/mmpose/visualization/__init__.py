# Copyright (c) OpenMMLab. All rights reserved.
from .fast_visualizer import FastVisualizer
from .local_visualizer import PoseLocalVisualizer
from .local_visualizer_3d import Pose3dLocalVisualizer

__all__ = ['PoseLocalVisualizer', 'FastVisualizer', 'Pose3dLocalVisualizer']
