"""Text generation script for FiveAttn and MHA models."""

from typing import Optional
import torch

from fiveattn.config import ModelConfig
from fiveattn.model import TransformerLM
from fiveattn.tokenizer import SmolLMTokenizer, get_tokenizer


def generate_text(
    model: TransformerLM,
    prompt: str,
    max_new_tokens: int = 50,
    temperature: float = 0.8,
    top_k: int = 50,
    tokenizer: Optional[SmolLMTokenizer] = None,
    device: Optional[torch.device] = None,
) -> str:
    """Generates text continuation given a prompt."""
    if tokenizer is None:
        tokenizer = get_tokenizer()

    if device is None:
        device = next(model.parameters()).device

    input_ids = tokenizer.encode(prompt, return_tensors="pt").to(device)

    output_ids = model.generate(
        input_ids=input_ids,
        max_new_tokens=max_new_tokens,
        temperature=temperature,
        top_k=top_k,
        eos_token_id=tokenizer.eos_token_id,
    )

    generated_text = tokenizer.decode(output_ids[0])
    return generated_text


def load_model_from_checkpoint(
    checkpoint_path: str,
    device: str = "cpu",
) -> TransformerLM:
    """Loads a TransformerLM model from a saved checkpoint dictionary."""
    ckpt = torch.load(checkpoint_path, map_location=device, weights_only=False)
    config = ckpt["config"]
    model = TransformerLM(config)
    model.load_state_dict(ckpt["model_state_dict"])
    model.to(torch.device(device))
    model.eval()
    return model
