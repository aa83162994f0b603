"""SeqSeg high-level pipeline (library API)."""

from seqseg.pipeline.classic import run_classic_batch
from seqseg.pipeline.plus import run_plus_batch
from seqseg.pipeline.post import (
    bootstrap_simvascular_project,
    run_global_centerline_batch,
    run_global_centerline_single,
)
from seqseg.pipeline.config import load_yaml_config

__all__ = (
    "load_yaml_config",
    "run_classic_batch",
    "run_plus_batch",
    "bootstrap_simvascular_project",
    "run_global_centerline_single",
    "run_global_centerline_batch",
)
