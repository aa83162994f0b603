from ._model import Model
from ._teacher_forcing import TeacherForcing
from ._text_generation import TextGeneration
from ._topk_lm import TopKLM
from ._transformers_pipeline import TransformersPipeline

__all__ = [
    "Model",
    "TeacherForcing",
    "TextGeneration",
    "TopKLM",
    "TransformersPipeline",
]
