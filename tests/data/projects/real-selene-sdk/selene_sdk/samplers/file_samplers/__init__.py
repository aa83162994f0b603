"""
This module provides classes and methods for sampling labeled data
examples from files.
"""
from .file_sampler import FileSampler
from .bed_file_sampler import BedFileSampler
from .mat_file_sampler import MatFileSampler

__all__ = ["FileSampler",
           "BedFileSampler",
           "MatFileSampler"]
