"""
Reward functions for EGGROLL evolution.

These define the fitness function that guides evolution.
Any callable that takes (model, inputs) -> float works.
"""

import torch
import torch.nn as nn
from typing import Callable, Optional, List, Any
from dataclasses import dataclass
import math


class BaseReward:
    """Base class for reward functions."""

    def __call__(self, model: nn.Module, inputs: Any) -> float:
        raise NotImplementedError


class PerplexityReward(BaseReward):
    """
    Reward = negative perplexity (lower perplexity = higher fitness).
    Standard metric for language model quality.
    """

    def __init__(self, tokenizer=None, max_length: int = 512):
        self.tokenizer = tokenizer
        self.max_length = max_length

    @torch.no_grad()
    def __call__(self, model: nn.Module, inputs: Any) -> float:
        if isinstance(inputs, dict):
            input_ids = inputs["input_ids"]
            labels = inputs.get("labels", input_ids)
        else:
            input_ids = inputs
            labels = inputs

        device = next(model.parameters()).device
        if input_ids.device != device:
            input_ids = input_ids.to(device)
            labels = labels.to(device)

        outputs = model(input_ids=input_ids, labels=labels)
        loss = outputs.loss.item()

        # Return negative perplexity (higher = better)
        return -math.exp(loss)


class TextReward(BaseReward):
    """
    Reward based on a text scoring function.
    User provides a function that scores generated text.

    Example:
        def my_scorer(generated_text: str) -> float:
            return 1.0 if "correct" in generated_text else 0.0

        reward = TextReward(tokenizer, scorer=my_scorer)
    """

    def __init__(
        self,
        tokenizer,
        scorer: Callable[[str], float],
        max_new_tokens: int = 128,
        temperature: float = 0.7,
    ):
        self.tokenizer = tokenizer
        self.scorer = scorer
        self.max_new_tokens = max_new_tokens
        self.temperature = temperature

    @torch.no_grad()
    def __call__(self, model: nn.Module, inputs: Any) -> float:
        if isinstance(inputs, dict):
            input_ids = inputs["input_ids"]
        else:
            input_ids = inputs

        device = next(model.parameters()).device
        if input_ids.device != device:
            input_ids = input_ids.to(device)

        # Generate text
        outputs = model.generate(
            input_ids=input_ids,
            max_new_tokens=self.max_new_tokens,
            temperature=self.temperature,
            do_sample=True,
            pad_token_id=self.tokenizer.eos_token_id,
        )

        generated = self.tokenizer.decode(outputs[0], skip_special_tokens=True)
        return self.scorer(generated)


class CustomReward(BaseReward):
    """
    Wrap any callable as a reward function.

    Example:
        reward = CustomReward(lambda model, inputs: compute_bleu(model, inputs))
    """

    def __init__(self, fn: Callable[[nn.Module, Any], float]):
        self.fn = fn

    def __call__(self, model: nn.Module, inputs: Any) -> float:
        return self.fn(model, inputs)


class MultiReward(BaseReward):
    """
    Combine multiple reward functions with weights.

    Example:
        reward = MultiReward([
            (PerplexityReward(), 0.5),
            (TextReward(tok, code_scorer), 0.5),
        ])
    """

    def __init__(self, rewards: List[tuple]):
        self.rewards = rewards  # List of (reward_fn, weight)

    def __call__(self, model: nn.Module, inputs: Any) -> float:
        total = 0.0
        for reward_fn, weight in self.rewards:
            total += weight * reward_fn(model, inputs)
        return total


class CodeExecutionReward(BaseReward):
    """
    Reward based on whether generated code executes correctly.
    Generates code, runs it in a sandbox, scores based on test results.
    """

    def __init__(
        self,
        tokenizer,
        test_fn: Callable[[str], float],
        max_new_tokens: int = 256,
    ):
        self.tokenizer = tokenizer
        self.test_fn = test_fn
        self.max_new_tokens = max_new_tokens

    @torch.no_grad()
    def __call__(self, model: nn.Module, inputs: Any) -> float:
        if isinstance(inputs, dict):
            input_ids = inputs["input_ids"]
        else:
            input_ids = inputs

        device = next(model.parameters()).device
        if input_ids.device != device:
            input_ids = input_ids.to(device)

        outputs = model.generate(
            input_ids=input_ids,
            max_new_tokens=self.max_new_tokens,
            temperature=0.2,
            do_sample=True,
            pad_token_id=self.tokenizer.eos_token_id,
        )

        generated = self.tokenizer.decode(outputs[0], skip_special_tokens=True)
        return self.test_fn(generated)
