"""Inference: MossPipeline (text-to-image with the official sampler) and the components
it holds."""

from kohakumoss.inference.components import Components
from kohakumoss.inference.pipeline import GenerateResult, MossPipeline

__all__ = ["Components", "GenerateResult", "MossPipeline"]
