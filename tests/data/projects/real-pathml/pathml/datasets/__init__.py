"""
Copyright 2021, Dana-Farber Cancer Institute and Weill Cornell Medicine
License: GNU GPL 2.0
"""

from .datasets import EntityDataset, TileDataset
from .deepfocus import DeepFocusDataModule
from .pannuke import PanNukeDataModule
