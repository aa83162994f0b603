"""Viewer module for environment visualization."""

from mjlab.viewer.base import BaseViewer as BaseViewer
from mjlab.viewer.base import EnvProtocol as EnvProtocol
from mjlab.viewer.base import PolicyProtocol as PolicyProtocol
from mjlab.viewer.base import VerbosityLevel as VerbosityLevel
from mjlab.viewer.native import NativeMujocoViewer as NativeMujocoViewer
from mjlab.viewer.offscreen_renderer import OffscreenRenderer as OffscreenRenderer
from mjlab.viewer.viewer_config import ViewerConfig as ViewerConfig
from mjlab.viewer.viser import ViserPlayViewer as ViserPlayViewer
