from .itk_snap import T1T2
from .itk_snap import AorticValve
from .itk_snap import BrainTumor

__all__ = [
    'BrainTumor',
    'T1T2',
    'AorticValve',
]
