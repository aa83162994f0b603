from simpletransformers.config.model_args import LanguageGenerationArgs
from simpletransformers.language_generation.language_generation_model import (
    LanguageGenerationModel,
)
