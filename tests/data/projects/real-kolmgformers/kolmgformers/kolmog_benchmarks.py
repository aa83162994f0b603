"""
Benchmarking and complexity analysis for KOLMOGformer vs Transformer.

Provides:
  - memory_benchmark(): measure peak GPU/CPU memory vs sequence length
  - speed_benchmark(): measure throughput (tokens/sec) vs sequence length
  - complexity_table(): print theoretical complexity comparison
  - profile_forward(): detailed layer-by-layer timing
  - compare_with_transformer(): side-by-side comparison (requires transformers lib)
"""

import gc
import math
import time
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn as nn
from torch import Tensor


# ---------------------------------------------------------------------------
# Theoretical Complexity Table
# ---------------------------------------------------------------------------

def complexity_table():
    """Print a formatted table comparing KOLMOGformer vs other architectures."""
    rows = [
        ("Transformer (standard)",  "O(n²d)",  "O(n²)",  "Full dot-product attention matrix"),
        ("Transformer (Flash Attn)","O(n²d)",  "O(n)",   "Tiled I/O-efficient attention"),
        ("Linformer",               "O(nd)",   "O(n)",   "Low-rank key/value projection"),
        ("Performer",               "O(nd)",   "O(n)",   "Random feature kernel approx."),
        ("Linear Attention",        "O(nd)",   "O(nd)",  "Kernel-reformulated attention"),
        ("S4 / Mamba",              "O(n log n)","O(n)", "Structured state-space model"),
        ("KOLMOGformer (ours)",     "O(nd)",   "O(d)",   "Kolmogorov cumulative context"),
    ]
    header = f"{'Model':<28} {'Time':>10} {'Memory':>10}  {'Notes'}"
    sep    = "-" * 80
    print(sep)
    print("  KOLMOGformer vs. State-of-the-Art: Complexity Comparison")
    print(sep)
    print(header)
    print(sep)
    for name, time_c, mem_c, notes in rows:
        marker = "  ◄" if "KOLMOG" in name else "   "
        print(f"{name:<28} {time_c:>10} {mem_c:>10}  {notes}{marker}")
    print(sep)
    print("  n = sequence length, d = hidden dimension")
    print("  KOLMOGformer achieves O(d) memory — independent of sequence length.")
    print(sep)


# ---------------------------------------------------------------------------
# Memory Benchmark
# ---------------------------------------------------------------------------

def memory_benchmark(
    model: nn.Module,
    seq_lengths: List[int],
    batch_size: int = 1,
    vocab_size: int = 1000,
    device: Optional[torch.device] = None,
    dtype: torch.dtype = torch.float32,
    compare_model: Optional[nn.Module] = None,
    compare_name: str = "Baseline",
) -> Dict[str, List]:
    """Measure peak memory (MB) at each sequence length.

    Args:
        model:         KOLMOGformer model
        seq_lengths:   list of sequence lengths to test
        batch_size:    batch size
        vocab_size:    vocabulary size for random input generation
        device:        torch.device (defaults to CUDA if available)
        dtype:         data type for the forward pass
        compare_model: optional second model to benchmark alongside
        compare_name:  label for the comparison model

    Returns:
        dict with keys "seq_lengths", "kolmog_memory_mb", and optionally
        "{compare_name}_memory_mb"
    """
    if device is None:
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    model = model.to(device).to(dtype)
    model.eval()

    if compare_model is not None:
        compare_model = compare_model.to(device).to(dtype)
        compare_model.eval()

    results = {
        "seq_lengths": seq_lengths,
        "kolmog_memory_mb": [],
    }
    if compare_model is not None:
        results[f"{compare_name}_memory_mb"] = []

    print(f"\n{'='*60}")
    print(f"  Memory Benchmark  (batch={batch_size}, device={device})")
    print(f"{'='*60}")
    header = f"{'SeqLen':>8}  {'KOLMOGformer (MB)':>20}"
    if compare_model is not None:
        header += f"  {compare_name+' (MB)':>20}"
    print(header)
    print("-" * 60)

    for seq_len in seq_lengths:
        input_ids = torch.randint(0, vocab_size, (batch_size, seq_len), device=device)

        # Benchmark KOLMOGformer
        gc.collect()
        if device.type == "cuda":
            torch.cuda.empty_cache()
            torch.cuda.reset_peak_memory_stats(device)
        with torch.no_grad():
            _ = model(input_ids=input_ids)
        if device.type == "cuda":
            mem_mb = torch.cuda.max_memory_allocated(device) / 1e6
        else:
            mem_mb = _estimate_cpu_memory(model, input_ids)
        results["kolmog_memory_mb"].append(mem_mb)

        row = f"{seq_len:>8}  {mem_mb:>20.1f}"

        # Benchmark comparison model
        if compare_model is not None:
            gc.collect()
            if device.type == "cuda":
                torch.cuda.empty_cache()
                torch.cuda.reset_peak_memory_stats(device)
            try:
                with torch.no_grad():
                    _ = compare_model(input_ids=input_ids)
                if device.type == "cuda":
                    cmp_mb = torch.cuda.max_memory_allocated(device) / 1e6
                else:
                    cmp_mb = float("nan")
            except RuntimeError as e:
                cmp_mb = float("inf")  # OOM
            results[f"{compare_name}_memory_mb"].append(cmp_mb)
            row += f"  {cmp_mb:>20.1f}"

        print(row)

    print(f"{'='*60}\n")
    return results


def _estimate_cpu_memory(model: nn.Module, input_ids: Tensor) -> float:
    """Rough CPU memory estimate based on parameter count and activation size."""
    param_bytes = sum(p.numel() * p.element_size() for p in model.parameters())
    act_bytes = input_ids.numel() * 4 * 10  # rough activation multiplier
    return (param_bytes + act_bytes) / 1e6


# ---------------------------------------------------------------------------
# Speed / Throughput Benchmark
# ---------------------------------------------------------------------------

def speed_benchmark(
    model: nn.Module,
    seq_lengths: List[int],
    batch_size: int = 4,
    vocab_size: int = 1000,
    num_warmup: int = 5,
    num_runs: int = 20,
    device: Optional[torch.device] = None,
    dtype: torch.dtype = torch.float32,
) -> Dict[str, List]:
    """Measure inference throughput (tokens/sec) at each sequence length.

    Returns:
        dict with "seq_lengths", "tokens_per_sec", "ms_per_batch"
    """
    if device is None:
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    model = model.to(device).to(dtype)
    model.eval()

    results = {"seq_lengths": seq_lengths, "tokens_per_sec": [], "ms_per_batch": []}

    print(f"\n{'='*60}")
    print(f"  Throughput Benchmark  (batch={batch_size}, device={device})")
    print(f"{'='*60}")
    print(f"{'SeqLen':>8}  {'Tokens/sec':>14}  {'ms/batch':>12}  {'ms/token':>12}")
    print("-" * 60)

    for seq_len in seq_lengths:
        input_ids = torch.randint(0, vocab_size, (batch_size, seq_len), device=device)

        # Warmup
        with torch.no_grad():
            for _ in range(num_warmup):
                _ = model(input_ids=input_ids)
        if device.type == "cuda":
            torch.cuda.synchronize()

        # Timed runs
        t0 = time.perf_counter()
        with torch.no_grad():
            for _ in range(num_runs):
                _ = model(input_ids=input_ids)
        if device.type == "cuda":
            torch.cuda.synchronize()
        elapsed = time.perf_counter() - t0

        ms_per_batch = (elapsed / num_runs) * 1000
        tokens_per_sec = (batch_size * seq_len * num_runs) / elapsed
        ms_per_token = ms_per_batch / (batch_size * seq_len)

        results["tokens_per_sec"].append(tokens_per_sec)
        results["ms_per_batch"].append(ms_per_batch)

        print(f"{seq_len:>8}  {tokens_per_sec:>14,.0f}  {ms_per_batch:>12.2f}  {ms_per_token:>12.4f}")

    print(f"{'='*60}\n")
    return results


# ---------------------------------------------------------------------------
# Theoretical scaling predictions
# ---------------------------------------------------------------------------

def theoretical_memory_scaling(
    seq_lengths: List[int],
    hidden_dim: int = 512,
    baseline_mb: float = 100.0,
) -> Dict[str, List[float]]:
    """Compute theoretical memory scaling curves for comparison plots.

    Returns MB estimates (normalized to baseline_mb at seq_lengths[0]).
    """
    n0 = seq_lengths[0]
    d = hidden_dim

    def norm(vals):
        s = vals[0]
        return [v / s * baseline_mb for v in vals]

    transformer_mem = [n**2 for n in seq_lengths]
    linear_attn_mem = [n * d for n in seq_lengths]
    kolmog_mem      = [d for _ in seq_lengths]  # O(d), constant in n

    return {
        "seq_lengths":       seq_lengths,
        "transformer_O_n2":  norm(transformer_mem),
        "linear_attn_O_nd":  norm(linear_attn_mem),
        "kolmogformer_O_d":  norm(kolmog_mem),
    }


# ---------------------------------------------------------------------------
# Layer-by-layer timing profiler
# ---------------------------------------------------------------------------

def profile_forward(
    model: nn.Module,
    seq_len: int = 512,
    batch_size: int = 2,
    vocab_size: int = 1000,
    device: Optional[torch.device] = None,
    num_runs: int = 10,
) -> Dict[str, float]:
    """Profile time spent in each named module of the model.

    Returns a dict mapping module name → average ms per forward pass.
    """
    if device is None:
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    model = model.to(device).eval()
    input_ids = torch.randint(0, vocab_size, (batch_size, seq_len), device=device)

    timings: Dict[str, List[float]] = {}
    hooks = []

    def make_hook(name):
        def hook(module, inp, out):
            if device.type == "cuda":
                torch.cuda.synchronize()
            timings.setdefault(name, []).append(time.perf_counter())
        return hook

    for name, module in model.named_modules():
        if isinstance(module, (nn.Linear, nn.LayerNorm, nn.Embedding)):
            hooks.append(module.register_forward_hook(make_hook(name)))

    # Warmup
    with torch.no_grad():
        for _ in range(3):
            model(input_ids=input_ids)

    timings.clear()

    # Timed
    with torch.no_grad():
        for _ in range(num_runs):
            model(input_ids=input_ids)

    for h in hooks:
        h.remove()

    # Convert to average ms between consecutive calls (rough estimate)
    result = {}
    for name, ts in timings.items():
        if len(ts) > 1:
            diffs = [ts[i+1] - ts[i] for i in range(len(ts)-1)]
            result[name] = (sum(diffs) / len(diffs)) * 1000
    return result


# ---------------------------------------------------------------------------
# Perplexity evaluation on a text corpus
# ---------------------------------------------------------------------------

@torch.no_grad()
def evaluate_perplexity(
    model: nn.Module,
    dataloader,
    device: Optional[torch.device] = None,
    verbose: bool = True,
) -> float:
    """Compute perplexity of a causal LM on a DataLoader.

    Args:
        model:      KOLMOGformerForCausalLM (or any model with .forward() returning .loss)
        dataloader: DataLoader yielding batches with 'input_ids' and 'labels'
        device:     compute device
        verbose:    print progress

    Returns:
        perplexity (scalar float)
    """
    if device is None:
        device = next(model.parameters()).device

    model.eval()
    total_loss = 0.0
    total_tokens = 0

    for i, batch in enumerate(dataloader):
        batch = {k: v.to(device) for k, v in batch.items()}
        outputs = model(**batch)
        if outputs.loss is None:
            raise ValueError("Model did not return a loss. Ensure 'labels' are in the batch.")

        # Count non-padding tokens
        n_tokens = (batch.get("labels", batch["input_ids"]) != -100).sum().item()
        total_loss   += outputs.loss.item() * n_tokens
        total_tokens += n_tokens

        if verbose and (i + 1) % 50 == 0:
            running_ppl = math.exp(total_loss / total_tokens)
            print(f"  [perplexity] step {i+1} | running ppl: {running_ppl:.2f}")

    avg_loss   = total_loss / max(total_tokens, 1)
    perplexity = math.exp(min(avg_loss, 20))

    if verbose:
        print(f"  Final perplexity: {perplexity:.4f} (avg NLL: {avg_loss:.4f})")

    return perplexity


# ---------------------------------------------------------------------------
# Simple ASCII progress bar (no tqdm dependency)
# ---------------------------------------------------------------------------

def progress_bar(current: int, total: int, width: int = 40, prefix: str = "") -> str:
    frac  = current / max(total, 1)
    filled = int(width * frac)
    bar   = "█" * filled + "░" * (width - filled)
    pct   = frac * 100
    return f"\r{prefix} [{bar}] {pct:.1f}% ({current}/{total})"
