"""Training loop for FiveAttn and MHA models on TinyStories."""

from typing import Optional
import os
import time
import math
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from fiveattn.config import ModelConfig, TrainConfig
from fiveattn.model import TransformerLM
from fiveattn.loss import CutCrossEntropyLoss
from fiveattn.dataset import get_dataloader


def configure_optimizers(
    model: nn.Module,
    learning_rate: float,
    weight_decay: float,
    betas: tuple[float, float] = (0.9, 0.95),
    eps: float = 1e-8,
) -> torch.optim.Optimizer:
    """Configures AdamW with weight decay applied only to 2D weights."""
    decay_params = []
    nodecay_params = []

    for name, param in model.named_parameters():
        if not param.requires_grad:
            continue
        if param.dim() >= 2:
            decay_params.append(param)
        else:
            nodecay_params.append(param)

    optim_groups = [
        {"params": decay_params, "weight_decay": weight_decay},
        {"params": nodecay_params, "weight_decay": 0.0},
    ]

    optimizer = torch.optim.AdamW(optim_groups, lr=learning_rate, betas=betas, eps=eps)
    return optimizer


def get_lr_scheduler(
    optimizer: torch.optim.Optimizer,
    warmup_steps: int,
    max_steps: int,
    min_lr_ratio: float = 0.1,
):
    """Cosine learning rate scheduler with linear warmup."""

    def lr_lambda(current_step: int) -> float:
        if current_step < warmup_steps:
            return float(current_step) / float(max(1, warmup_steps))
        progress = float(current_step - warmup_steps) / float(max(1, max_steps - warmup_steps))
        cosine_decay = 0.5 * (1.0 + math.cos(math.pi * progress))
        return min_lr_ratio + (1.0 - min_lr_ratio) * cosine_decay

    return torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)


def setup_torch_autotune():
    """Configures PyTorch inductor autotuning parameters."""
    try:
        import torch._inductor.config as inductor_config
        inductor_config.max_autotune = True
        inductor_config.triton.autotune_at_compile_time = True
        inductor_config.coordinate_descent_tuning = True
        print("[Autotune] Configured PyTorch Inductor max-autotune settings.")
    except Exception as e:
        print(f"[Autotune] Note: Inductor autotune config warning ({e}).")


def evaluate(
    model: TransformerLM,
    dataloader: DataLoader,
    loss_fn: CutCrossEntropyLoss,
    device: torch.device,
    eval_steps: int = 20,
    dtype: torch.dtype = torch.float32,
) -> float:
    """Evaluates the model on validation data."""
    model.eval()
    total_loss = 0.0
    steps = 0

    with torch.no_grad():
        for batch in dataloader:
            if steps >= eval_steps:
                break
            input_ids = batch["input_ids"].to(device)
            targets = batch["targets"].to(device)

            with torch.autocast(device_type=device.type, dtype=dtype, enabled=device.type == "cuda" and dtype != torch.float32):
                hidden_states = model.forward_hidden_states(input_ids)
                if device.type == "cuda" and dtype in (torch.bfloat16, torch.float16) and hidden_states.dtype != dtype:
                    hidden_states = hidden_states.to(dtype)
                loss = loss_fn(hidden_states, model.get_output_embeddings(), targets)

            total_loss += loss.item()
            steps += 1

    model.train()
    return total_loss / max(1, steps)


def train(
    model: TransformerLM,
    train_config: TrainConfig,
    train_data_path: Optional[str] = None,
    val_data_path: Optional[str] = None,
    synthetic: bool = False,
) -> dict:
    """Runs training for the specified model and configuration."""
    # Device setup
    device_str = train_config.device
    if device_str == "cuda" and not torch.cuda.is_available():
        print("CUDA requested but not available. Falling back to CPU.")
        device_str = "cpu"
    device = torch.device(device_str)

    if train_config.dtype == "bfloat16" and torch.cuda.is_available():
        dtype = torch.bfloat16
    elif train_config.dtype == "float16" and torch.cuda.is_available():
        dtype = torch.float16
    else:
        dtype = torch.float32

    model = model.to(device)
    model.train()

    # Configure autotune and torch.compile
    if train_config.autotune:
        setup_torch_autotune()

    if train_config.compile:
        print(f"[torch.compile] Compiling model with mode='{train_config.compile_mode}'...")
        try:
            model = torch.compile(model, mode=train_config.compile_mode)
            print("[torch.compile] Model compilation initialized.")
        except Exception as e:
            print(f"[torch.compile] Compilation notice ({e}), proceeding with eager.")

    # CutCrossEntropy loss: CCE requires bf16/fp16 on CUDA
    loss_impl = "cce" if device.type == "cuda" and dtype in (torch.bfloat16, torch.float16) else "chunked"
    loss_fn = CutCrossEntropyLoss(shift=True, impl=loss_impl)

    # Dataloaders
    train_dataloader = get_dataloader(
        data_path=train_data_path,
        split="train",
        seq_len=train_config.seq_len,
        batch_size=train_config.batch_size,
        synthetic=synthetic,
        vocab_size=model.config.vocab_size,
    )
    val_dataloader = get_dataloader(
        data_path=val_data_path,
        split="validation",
        seq_len=train_config.seq_len,
        batch_size=train_config.batch_size,
        synthetic=synthetic,
        max_samples=200,
        vocab_size=model.config.vocab_size,
    )

    # Optimizer & Scheduler
    optimizer = configure_optimizers(
        model,
        learning_rate=train_config.learning_rate,
        weight_decay=train_config.weight_decay,
    )
    min_ratio = train_config.min_learning_rate / train_config.learning_rate
    scheduler = get_lr_scheduler(
        optimizer,
        warmup_steps=train_config.warmup_steps,
        max_steps=train_config.max_steps,
        min_lr_ratio=min_ratio,
    )

    data_iter = iter(train_dataloader)
    os.makedirs(train_config.checkpoint_dir, exist_ok=True)

    print(f"Starting training: {model.config.attention_type.upper()} ({model.config.count_parameters()['total']:,} params)")
    print(f"Device: {device}, Precision: {dtype}, Batch Size: {train_config.batch_size}, Seq Len: {train_config.seq_len}")

    start_time = time.time()
    total_tokens_processed = 0
    step = 0
    running_loss = 0.0
    history = []

    while step < train_config.max_steps:
        try:
            batch = next(data_iter)
        except StopIteration:
            data_iter = iter(train_dataloader)
            batch = next(data_iter)

        input_ids = batch["input_ids"].to(device)
        targets = batch["targets"].to(device)

        step_start = time.time()

        optimizer.zero_grad(set_to_none=True)

        with torch.autocast(device_type=device.type, dtype=dtype, enabled=device.type == "cuda" and dtype != torch.float32):
            # Direct hidden states computation without allocating BxTxV logits
            hidden_states = model.forward_hidden_states(input_ids)
            if device.type == "cuda" and dtype in (torch.bfloat16, torch.float16) and hidden_states.dtype != dtype:
                hidden_states = hidden_states.to(dtype)
            loss = loss_fn(hidden_states, model.get_output_embeddings(), targets)

        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        optimizer.step()
        scheduler.step()

        step_time = time.time() - step_start
        tokens_in_batch = input_ids.numel()
        total_tokens_processed += tokens_in_batch
        tok_per_sec = tokens_in_batch / max(1e-5, step_time)

        running_loss += loss.item()
        step += 1

        if step % 20 == 0 or step == 1:
            avg_loss = running_loss / (20 if step > 1 else 1)
            running_loss = 0.0
            cur_lr = scheduler.get_last_lr()[0]
            print(
                f"Step {step:05d}/{train_config.max_steps:05d} | "
                f"Loss: {loss.item():.4f} (Avg: {avg_loss:.4f}) | "
                f"LR: {cur_lr:.2e} | "
                f"Throughput: {tok_per_sec:,.0f} tok/s"
            )
            history.append({
                "step": step,
                "loss": loss.item(),
                "lr": cur_lr,
                "tok_per_sec": tok_per_sec,
            })

        if step % train_config.eval_interval == 0:
            val_loss = evaluate(
                model, val_dataloader, loss_fn, device,
                eval_steps=train_config.eval_steps, dtype=dtype
            )
            print(f">>> [Eval Step {step:05d}] Validation Loss: {val_loss:.4f} (Perplexity: {math.exp(min(20, val_loss)):.2f})")

        if step % train_config.save_interval == 0 or step == train_config.max_steps:
            ckpt_path = os.path.join(
                train_config.checkpoint_dir,
                f"{model.config.attention_type}_step_{step}.pt",
            )
            torch.save(
                {
                    "step": step,
                    "model_state_dict": model.state_dict(),
                    "optimizer_state_dict": optimizer.state_dict(),
                    "config": model.config,
                },
                ckpt_path,
            )
            print(f"[Checkpoint] Saved to {ckpt_path}")

    total_time = time.time() - start_time
    print(f"Training completed in {total_time:.2f}s. Average throughput: {total_tokens_processed / max(1, total_time):,.0f} tok/s")

    return {
        "total_time": total_time,
        "total_tokens": total_tokens_processed,
        "history": history,
    }
