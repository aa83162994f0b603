"""
WaveNet implementation
https://arxiv.org/abs/1609.03499
"""

from ._packed_wavenet import PackedWaveNet
from ._wavenet_wrapper import WaveNet
