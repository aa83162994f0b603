"""Benchmarking and comparison utility between standard MHA and 5-Component Attention."""

from typing import Dict, Any, Optional
import time
import torch
import torch.nn as nn

from fiveattn.config import ModelConfig
from fiveattn.model import TransformerLM
from fiveattn.loss import CutCrossEntropyLoss


def verify_compilation(model: TransformerLM, seq_len: int = 64) -> Dict[str, Any]:
    """Inspects model with TorchDynamo and returns graph break statistics."""
    x = torch.randint(0, model.config.vocab_size, (1, seq_len))
    
    # 1. Hidden states (used by training and cut-cross-entropy)
    explanation_hidden = torch._dynamo.explain(model.forward_hidden_states)(x)
    
    # 2. Full model (including output projection)
    explanation_full = torch._dynamo.explain(model)(x)

    return {
        "hidden_states_graph_breaks": explanation_hidden.graph_break_count,
        "hidden_states_graphs": explanation_hidden.graph_count,
        "full_model_graph_breaks": explanation_full.graph_break_count,
        "full_model_graphs": explanation_full.graph_count,
        "is_clean": (explanation_hidden.graph_break_count == 0 and explanation_full.graph_break_count == 0),
    }


def benchmark_model(
    model: TransformerLM,
    batch_size: int = 4,
    seq_len: int = 256,
    num_warmup: int = 5,
    num_steps: int = 20,
    device_str: str = "cpu",
    dtype: Optional[torch.dtype] = None,
    use_compile: bool = False,
    compile_mode: str = "default",
) -> Dict[str, Any]:
    """Measures latency, memory, throughput, and compilation for a given model."""
    device = torch.device(device_str)
    model = model.to(device)
    model.train()

    if dtype is None:
        if device.type == "cuda":
            dtype = torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
        else:
            dtype = torch.float32

    # Dynamo compilation check
    compile_check = verify_compilation(model, seq_len=min(64, seq_len))

    if use_compile:
        try:
            model = torch.compile(model, mode=compile_mode)
        except Exception as e:
            print(f"Warning: torch.compile failed ({e})")

    loss_impl = "cce" if device.type == "cuda" and dtype in (torch.bfloat16, torch.float16) else "chunked"
    loss_fn = CutCrossEntropyLoss(shift=True, impl=loss_impl)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)

    input_ids = torch.randint(0, model.config.vocab_size, (batch_size, seq_len), device=device)
    targets = input_ids.clone()

    # Reset memory stats
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)

    # Warmup
    for _ in range(num_warmup):
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device_type=device.type, dtype=dtype, enabled=device.type == "cuda" and dtype != torch.float32):
            h = model.forward_hidden_states(input_ids)
            if device.type == "cuda" and dtype in (torch.bfloat16, torch.float16) and h.dtype != dtype:
                h = h.to(dtype)
            loss = loss_fn(h, model.get_output_embeddings(), targets)
        loss.backward()
        optimizer.step()

    if device.type == "cuda":
        torch.cuda.synchronize()

    # Benchmark steps
    step_times = []
    tokens_per_step = batch_size * seq_len

    for _ in range(num_steps):
        if device.type == "cuda":
            torch.cuda.synchronize()
        t0 = time.perf_counter()

        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device_type=device.type, dtype=dtype, enabled=device.type == "cuda" and dtype != torch.float32):
            h = model.forward_hidden_states(input_ids)
            if device.type == "cuda" and dtype in (torch.bfloat16, torch.float16) and h.dtype != dtype:
                h = h.to(dtype)
            loss = loss_fn(h, model.get_output_embeddings(), targets)
        loss.backward()
        optimizer.step()

        if device.type == "cuda":
            torch.cuda.synchronize()
        t1 = time.perf_counter()
        step_times.append(t1 - t0)

    avg_step_time = sum(step_times) / len(step_times)
    tok_per_sec = tokens_per_step / max(1e-6, avg_step_time)

    peak_mem_mb = 0.0
    if device.type == "cuda":
        peak_mem_mb = torch.cuda.max_memory_allocated(device) / (1024 * 1024)

    param_counts = model.config.count_parameters()

    return {
        "attention_type": model.config.attention_type,
        "total_parameters": param_counts["total"],
        "attention_parameters": param_counts["attention"],
        "mlp_parameters": param_counts["mlp"],
        "embeddings_parameters": param_counts["embeddings"],
        "avg_step_ms": avg_step_time * 1000.0,
        "tokens_per_sec": tok_per_sec,
        "peak_mem_mb": peak_mem_mb,
        "graph_breaks": compile_check["hidden_states_graph_breaks"],
        "fullgraph_clean": compile_check["is_clean"],
    }


def compare_models(
    batch_size: int = 4,
    seq_len: int = 128,
    num_steps: int = 10,
    device_str: str = "cpu",
    use_compile: bool = False,
) -> str:
    """Runs a side-by-side benchmark comparing MHA-100M and FiveAttn-100M."""
    print("Initializing MHA 100M and 5-Component Attention 100M models...")
    mha_cfg = ModelConfig.get_100m_mha_config()
    five_cfg = ModelConfig.get_100m_fiveattn_config()

    mha_model = TransformerLM(mha_cfg)
    five_model = TransformerLM(five_cfg)

    print(f"Running benchmark on {device_str.upper()} (batch_size={batch_size}, seq_len={seq_len})...")
    mha_res = benchmark_model(
        mha_model,
        batch_size=batch_size,
        seq_len=seq_len,
        num_steps=num_steps,
        device_str=device_str,
        use_compile=use_compile,
    )
    five_res = benchmark_model(
        five_model,
        batch_size=batch_size,
        seq_len=seq_len,
        num_steps=num_steps,
        device_str=device_str,
        use_compile=use_compile,
    )

    report = f"""
========================================================================================
                     100M TRANSFORMER ARCHITECTURE COMPARISON
========================================================================================
Metric                             | Standard MHA-100M      | 5-Component Attention 100M
-----------------------------------|------------------------|---------------------------
Total Parameters                   | {mha_res['total_parameters']:,}             | {five_res['total_parameters']:,}
Attention Parameters               | {mha_res['attention_parameters']:,}             | {five_res['attention_parameters']:,}
MLP (SwiGLU) Parameters            | {mha_res['mlp_parameters']:,}             | {five_res['mlp_parameters']:,}
Embedding Parameters               | {mha_res['embeddings_parameters']:,}             | {five_res['embeddings_parameters']:,}
MLP Hidden Dimension               | {mha_cfg.mlp_hidden_dim:<22} | {five_cfg.mlp_hidden_dim:<25}
Projections in Attention Block     | 4 (Q, K, V, O)         | 5 (Q, K, V, Gate, O)
-----------------------------------|------------------------|---------------------------
Compilation Graph Breaks           | {mha_res['graph_breaks']} (Zero Breaks)        | {five_res['graph_breaks']} (Zero Breaks)
FullGraph Clean                    | {str(mha_res['fullgraph_clean']):<22} | {str(five_res['fullgraph_clean']):<25}
Step Latency (ms)                  | {mha_res['avg_step_ms']:<22.2f} | {five_res['avg_step_ms']:<25.2f}
Throughput (tok/s)                 | {mha_res['tokens_per_sec']:<22,.0f} | {five_res['tokens_per_sec']:<25,.0f}
========================================================================================
"""
    return report
