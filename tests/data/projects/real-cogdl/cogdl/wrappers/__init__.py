from .data_wrapper import register_data_wrapper, fetch_data_wrapper
from .model_wrapper import (
    register_model_wrapper,
    fetch_model_wrapper,
    ModelWrapper,
    EmbeddingModelWrapper,
)
