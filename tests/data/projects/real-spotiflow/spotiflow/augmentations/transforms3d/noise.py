
"""Create dummy GaussianNoise3D, SaltAndPepperNoise3D classes simply for API coherence"""
from ..transforms import GaussianNoise, SaltAndPepperNoise

GaussianNoise3D = GaussianNoise
SaltAndPepperNoise3D = SaltAndPepperNoise
