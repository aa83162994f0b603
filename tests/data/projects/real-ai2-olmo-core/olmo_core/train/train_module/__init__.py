from .train_module import (
    BasicTrainModule,
    EvalBatchSizeUnit,
    EvalBatchSpec,
    TrainModule,
)
from .transformer import (
    TransformerActivationCheckpointingConfig,
    TransformerActivationCheckpointingMode,
    TransformerContextParallelConfig,
    TransformerDataParallelConfig,
    TransformerDataParallelWrappingStrategy,
    TransformerExpertParallelConfig,
    TransformerPipelineParallelConfig,
    TransformerPipelineTrainModule,
    TransformerPipelineTrainModuleConfig,
    TransformerTensorParallelConfig,
    TransformerTrainModule,
    TransformerTrainModuleConfig,
)

__all__ = [
    "TrainModule",
    "EvalBatchSpec",
    "EvalBatchSizeUnit",
    "BasicTrainModule",
    "TransformerTrainModule",
    "TransformerTrainModuleConfig",
    "TransformerPipelineTrainModule",
    "TransformerPipelineTrainModuleConfig",
    "TransformerActivationCheckpointingConfig",
    "TransformerActivationCheckpointingMode",
    "TransformerDataParallelConfig",
    "TransformerDataParallelWrappingStrategy",
    "TransformerExpertParallelConfig",
    "TransformerTensorParallelConfig",
    "TransformerContextParallelConfig",
    "TransformerPipelineParallelConfig",
]
