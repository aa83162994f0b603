"""
Prompt Augmentation
=====================

This package includes functions used to augment a prompt for a LLM

"""

from .prompt_augmentation_pipeline import PromptAugmentationPipeline
