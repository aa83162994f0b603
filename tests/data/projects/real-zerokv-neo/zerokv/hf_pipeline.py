"""
ZeroKV-Neo HuggingFace Pipeline — production-ready inference with 7B+ models.

Supports:
- AWQ/GPTQ quantized models for efficient VRAM usage
- Streaming generation with token-by-token output
- Memory-efficient device_map loading
- Gradio Spaces deployment

Usage:
    # Local
    python zerokv/hf_pipeline.py --model Qwen/Qwen2.5-7B-Instruct-AWQ --device cuda

    # HuggingFace Spaces (app.py)
    # See: https://huggingface.co/new-space
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any, Dict, Generator, List, Optional

import torch
from transformers import (
    AutoModelForCausalLM,
    AutoTokenizer,
    TextIteratorStreamer,
    pipeline,
)
from threading import Thread

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from zerokv.cache import build_zerokv_cache
from zerokv.metrics import cleanup_after_inference


# --- Model presets for efficient loading ---
MODEL_PRESETS = {
    "qwen-7b-awq": {
        "model_id": "Qwen/Qwen2.5-7B-Instruct-AWQ",
        "torch_dtype": torch.float16,
        "device_map": "auto",
        "description": "Qwen2.5-7B AWQ (4-bit) — ~4GB VRAM",
    },
    "qwen-7b": {
        "model_id": "Qwen/Qwen2.5-7B-Instruct",
        "torch_dtype": torch.float16,
        "device_map": "auto",
        "description": "Qwen2.5-7B FP16 — ~14GB VRAM",
    },
    "qwen-3b": {
        "model_id": "Qwen/Qwen2.5-3B-Instruct",
        "torch_dtype": torch.float16,
        "device_map": "auto",
        "description": "Qwen2.5-3B FP16 — ~6GB VRAM",
    },
    "qwen-1.5b": {
        "model_id": "Qwen/Qwen2.5-1.5B-Instruct",
        "torch_dtype": torch.float16,
        "device_map": "auto",
        "description": "Qwen2.5-1.5B FP16 — ~3GB VRAM",
    },
    "llama-8b-awq": {
        "model_id": "hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4",
        "torch_dtype": torch.float16,
        "device_map": "auto",
        "description": "Llama-3.1-8B AWQ (4-bit) — ~4.5GB VRAM",
    },
}


class ZeroKVPipeline:
    """Production-ready ZeroKV inference pipeline."""

    def __init__(
        self,
        model_id: str,
        *,
        device: str = "auto",
        precision_mode: bool = False,
        torch_dtype: Optional[torch.dtype] = None,
        load_in_4bit: bool = False,
        load_in_8bit: bool = False,
        max_memory: Optional[Dict] = None,
    ):
        self.model_id = model_id
        self.precision_mode = precision_mode
        self.device = device
        self.stats = {}

        # Determine device
        if device == "auto":
            self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        else:
            self.device = torch.device(device)

        # Load tokenizer
        print(f"Loading tokenizer: {model_id}")
        self.tokenizer = AutoTokenizer.from_pretrained(model_id, trust_remote_code=True)
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token

        # Load model
        print(f"Loading model: {model_id} on {self.device}")
        load_kwargs = {
            "trust_remote_code": True,
            "device_map": "auto" if self.device.type == "cuda" else None,
        }
        if torch_dtype is not None:
            load_kwargs["torch_dtype"] = torch_dtype
        if load_in_4bit:
            load_kwargs["load_in_4bit"] = True
            load_kwargs["device_map"] = "auto"
        if load_in_8bit:
            load_kwargs["load_in_8bit"] = True
            load_kwargs["device_map"] = "auto"
        if max_memory:
            load_kwargs["max_memory"] = max_memory

        self.model = AutoModelForCausalLM.from_pretrained(model_id, **load_kwargs)
        self.model.eval()

        # Build ZeroKV cache
        self.cache = build_zerokv_cache(
            self.model.config,
            precision_mode=precision_mode,
        )

        mode_str = "precision" if precision_mode else "default"
        print(f"ZeroKV cache built ({mode_str} mode)")

    def generate(
        self,
        prompt: str,
        max_new_tokens: int = 256,
        temperature: float = 0.7,
        top_p: float = 0.9,
        do_sample: bool = True,
        stream: bool = False,
    ) -> Any:
        """Generate text with ZeroKV cache."""
        messages = [{"role": "user", "content": prompt}]
        formatted = self.tokenizer.apply_chat_template(
            messages, tokenize=False, add_generation_prompt=True
        )
        inputs = self.tokenizer(formatted, return_tensors="pt").to(self.model.device)
        n_in = inputs["input_ids"].shape[1]

        gen_kwargs = {
            "max_new_tokens": max_new_tokens,
            "do_sample": do_sample,
            "temperature": temperature,
            "top_p": top_p,
            "pad_token_id": self.tokenizer.pad_token_id,
            "eos_token_id": self.tokenizer.eos_token_id,
            "past_key_values": self.cache,
        }

        if stream:
            return self._stream(inputs, gen_kwargs, n_in)

        t0 = time.perf_counter()
        with torch.inference_mode():
            output = self.model.generate(**inputs, **gen_kwargs)
        dt = time.perf_counter() - t0
        n_new = int(output.shape[1] - n_in)
        text = self.tokenizer.decode(output[0][n_in:], skip_special_tokens=True)
        cleanup_after_inference()

        self.stats = {
            "prompt_tokens": n_in,
            "generated_tokens": n_new,
            "total_time": round(dt, 2),
            "tokens_per_second": round(n_new / dt, 2) if dt > 0 else 0,
            "mode": "precision" if self.precision_mode else "default",
        }
        return text

    def _stream(
        self,
        inputs: Dict[str, torch.Tensor],
        gen_kwargs: Dict[str, Any],
        n_in: int,
    ) -> Generator[str, None, None]:
        """Stream tokens one by one."""
        streamer = TextIteratorStreamer(self.tokenizer, skip_prompt=True, skip_special_tokens=True)
        gen_kwargs["streamer"] = streamer

        t0 = time.perf_counter()
        thread = Thread(
            target=self.model.generate,
            kwargs={**inputs, **gen_kwargs},
        )
        thread.start()

        n_tokens = 0
        for token in streamer:
            n_tokens += 1
            yield token

        thread.join()
        dt = time.perf_counter() - t0
        cleanup_after_inference()

        self.stats = {
            "prompt_tokens": n_in,
            "generated_tokens": n_tokens,
            "total_time": round(dt, 2),
            "tokens_per_second": round(n_tokens / dt, 2) if dt > 0 else 0,
            "mode": "precision" if self.precision_mode else "default",
        }

    def chat(
        self,
        messages: List[Dict[str, str]],
        max_new_tokens: int = 256,
        stream: bool = False,
    ) -> Any:
        """Chat-style generation with conversation history."""
        formatted = self.tokenizer.apply_chat_template(
            messages, tokenize=False, add_generation_prompt=True
        )
        return self.generate(
            formatted,
            max_new_tokens=max_new_tokens,
            stream=stream,
        )

    def get_stats(self) -> Dict[str, Any]:
        return self.stats


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="qwen-1.5b")
    ap.add_argument("--device", default="auto")
    ap.add_argument("--precision-mode", action="store_true")
    ap.add_argument("--prompt", default="Explain quantum computing in simple terms.")
    ap.add_argument("--max-tokens", type=int, default=128)
    ap.add_argument("--stream", action="store_true")
    ap.add_argument("--stats", action="store_true")
    args = ap.parse_args()

    # Resolve preset
    preset = MODEL_PRESETS.get(args.model, {})
    model_id = preset.get("model_id", args.model)
    torch_dtype = preset.get("torch_dtype")

    pipe = ZeroKVPipeline(
        model_id,
        device=args.device,
        precision_mode=args.precision_mode,
        torch_dtype=torch_dtype,
    )

    if args.stream:
        print(f"\nUser: {args.prompt}\n")
        print("Assistant: ", end="", flush=True)
        for token in pipe.generate(args.prompt, max_new_tokens=args.max_tokens, stream=True):
            print(token, end="", flush=True)
        print()
    else:
        print(f"\nUser: {args.prompt}\n")
        result = pipe.generate(args.prompt, max_new_tokens=args.max_tokens)
        print(f"Assistant: {result}")

    if args.stats:
        stats = pipe.get_stats()
        print(f"\nStats: {json.dumps(stats, indent=2)}")


if __name__ == "__main__":
    main()
