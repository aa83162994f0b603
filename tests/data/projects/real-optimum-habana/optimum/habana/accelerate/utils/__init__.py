from .dataclasses import (
    GaudiDistributedType,
    GaudiDynamoBackend,
    GaudiFP8RecipeKwargs,
    GaudiFullyShardedDataParallelPlugin,
    GaudiTorchDynamoPlugin,
)
from .other import extract_model_from_parallel
from .transformer_engine import (
    FP8ContextWrapper,
    convert_model,
    get_fp8_recipe,
)
