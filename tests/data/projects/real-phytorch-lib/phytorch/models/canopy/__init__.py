"""Canopy architecture models."""

from phytorch.models.canopy.leaf_angle_distribution import LeafAngleDistribution
from phytorch.models.canopy.utils import bin_leaf_angles, angle_statistics

__all__ = ['LeafAngleDistribution', 'bin_leaf_angles', 'angle_statistics']
