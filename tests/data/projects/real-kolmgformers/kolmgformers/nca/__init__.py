"""
kolmgformers/nca/__init__.py  v2.0.6
=====================================
Neuro-Creative Architecture v2 (NCA) — Package init.
"""
from kolmgformers.nca.novelty import NCAConfig, NoveltyDetector
from kolmgformers.nca.fae     import FreeAssociationEngine
from kolmgformers.nca.prl     import PreverbalReasoningLayer
from kolmgformers.nca.ee      import EvaluationEngine
from kolmgformers.nca.router  import CreativeModeRouter, CreativeOutput

__all__ = [
    "NCAConfig",
    "NoveltyDetector",
    "FreeAssociationEngine",
    "PreverbalReasoningLayer",
    "EvaluationEngine",
    "CreativeModeRouter",
    "CreativeOutput",
]
