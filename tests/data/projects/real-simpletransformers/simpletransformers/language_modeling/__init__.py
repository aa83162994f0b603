from simpletransformers.config.model_args import LanguageModelingArgs, GenerationArgs
from simpletransformers.language_modeling.language_modeling_model import (
    LanguageModelingModel,
)
