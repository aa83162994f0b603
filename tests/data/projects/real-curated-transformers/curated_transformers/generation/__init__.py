from .auto_generator import AutoGenerator
from .config import GeneratorConfig, GreedyGeneratorConfig, SampleGeneratorConfig
from .default_generator import DefaultGenerator
from .dolly_v2 import DollyV2Generator
from .falcon import FalconGenerator
from .generator import Generator
from .generator_wrapper import GeneratorWrapper
from .hf_hub import FromHF
from .llama import LlamaGenerator
from .logits import (
    CompoundLogitsTransform,
    LogitsTransform,
    TemperatureTransform,
    TopKTransform,
    TopPTransform,
    VocabMaskTransform,
)
from .mpt import MPTGenerator
from .stop_conditions import (
    CompoundStopCondition,
    EndOfSequenceCondition,
    MaxGeneratedPiecesCondition,
    StopCondition,
)
from .string_generator import StringGenerator

__all__ = [
    "AutoGenerator",
    "CompoundLogitsTransform",
    "CompoundStopCondition",
    "DefaultGenerator",
    "DollyV2Generator",
    "EndOfSequenceCondition",
    "FalconGenerator",
    "FromHF",
    "Generator",
    "GeneratorConfig",
    "GeneratorWrapper",
    "GreedyGeneratorConfig",
    "LlamaGenerator",
    "LogitsTransform",
    "MaxGeneratedPiecesCondition",
    "MPTGenerator",
    "SampleGeneratorConfig",
    "StopCondition",
    "StringGenerator",
    "TemperatureTransform",
    "TopKTransform",
    "TopPTransform",
    "VocabMaskTransform",
]
