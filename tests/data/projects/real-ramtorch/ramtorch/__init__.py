__version__ = "1.11.0"

from .modules.linear import Linear
from .stochastic_optimizers.adamw import AdamW
from .delayed_optim import AdamEF, Lion, Muon
from .dion3 import Dion3
from .pipeline import Stage, run_pipeline, PipelineResult
from .pipeline_relay import run_pipeline_relay, Pipeline, InferBatch
from .pipeline_2bw import PipeDream2BWTrainer
from .pipeline_easy import PipelineModel, auto_split_spec, PipelinePaddingWarning
from .pipeline_optimizer import PipelineOptimizer
from .offload import OffloadModel, OffloadStepResult, offload_checkpoint
from .pipeline_offload import OffloadStage
from .nvme_store import NvmeTensorStore
from . import schedule_simulator
from . import offload_simulator
from . import pipeline_offload_simulator

__all__ = [
    "Linear",
    "AdamW",
    "AdamEF",
    "Lion",
    "Muon",
    "Dion3",
    "Stage",
    "run_pipeline",
    "run_pipeline_relay",
    "Pipeline",
    "PipeDream2BWTrainer",
    "InferBatch",
    "PipelineModel",
    "PipelineOptimizer",
    "auto_split_spec",
    "PipelinePaddingWarning",
    "PipelineResult",
    "OffloadModel",
    "OffloadStepResult",
    "offload_checkpoint",
    "OffloadStage",
    "NvmeTensorStore",
    "schedule_simulator",
    "offload_simulator",
    "pipeline_offload_simulator",
]
