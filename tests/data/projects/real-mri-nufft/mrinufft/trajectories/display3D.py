"""Backward-compatibility shim for display3D functions.

Advanced 3D display utilities have moved to the display/ submodule.
"""

from mrinufft.trajectories.display.advanced import get_gridded_trajectory
