# ruff: noqa: F401
from .spots import SpotsDataset, collate_spots
from .spots3d import Spots3DDataset

from ..sample_data import *