"""Shared types: arch config, SeqInfo, block context, device batch, plans, protocols,
step output."""

from kohakumoss.types.arch import PRESETS, MossArchConfig
from kohakumoss.types.batch import DeviceBatch
from kohakumoss.types.context import BlockCtx
from kohakumoss.types.plans import MemoryPlan, ParallelPlan, PrecisionConfig
from kohakumoss.types.protocols import AdapterSet, OptimBundle, StatefulLoader
from kohakumoss.types.seqinfo import AttnPlan, SeqInfo, build_seqinfo
from kohakumoss.types.step import StepOut

__all__ = [
    "PRESETS",
    "AdapterSet",
    "BlockCtx",
    "OptimBundle",
    "StatefulLoader",
    "AttnPlan",
    "DeviceBatch",
    "MemoryPlan",
    "MossArchConfig",
    "ParallelPlan",
    "PrecisionConfig",
    "SeqInfo",
    "StepOut",
    "build_seqinfo",
]
