"""Native MuJoCo viewer implementation."""

from mjlab.viewer.native.viewer import NativeMujocoViewer as NativeMujocoViewer
from mjlab.viewer.native.visualizer import (
  MujocoNativeDebugVisualizer as MujocoNativeDebugVisualizer,
)
