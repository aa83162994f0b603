"""Hydraulic models for PhyTorch."""

from .sigmoidal import Sigmoidal
from .sjb2018 import SJB2018

__all__ = ['Sigmoidal', 'SJB2018']
