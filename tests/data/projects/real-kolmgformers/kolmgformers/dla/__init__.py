"""
kolmgformers/dla/__init__.py  v2.0.6
====================================
Digestive Learning Architecture (DLA) — Package init.
"""
from kolmgformers.dla.buffer     import DLAConfig, InteractionBufferEntry, InteractionBuffer
from kolmgformers.dla.pipeline   import DigestivePipeline
from kolmgformers.dla.absorption import AbsorptionEngine

__all__ = [
    "DLAConfig",
    "InteractionBufferEntry",
    "InteractionBuffer",
    "DigestivePipeline",
    "AbsorptionEngine",
]
