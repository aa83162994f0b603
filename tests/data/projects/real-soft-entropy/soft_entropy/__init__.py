from soft_entropy.accumulator import SoftEntropyAccumulator
from soft_entropy.llm import LLMInferrer

__all__ = ["SoftEntropyAccumulator", "LLMInferrer"]
