"""
Sykra Architecture - Professional Training, Evaluation & Generation Pipeline
Includes robust error handling, mixed precision (AMP), gradient accumulation, 
deterministic seeding, and serialization integrity checks.
"""

import os
import sys
import time
import math
import argparse
import logging
from typing import Optional, Tuple, Dict, Any, List

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader

from transformers import (
    AutoTokenizer,
    AutoConfig,
    AutoModelForCausalLM,
    PreTrainedTokenizerBase,
    get_cosine_schedule_with_warmup,
)

# Relative / absolute import compatibility for PyPI wheel and direct script execution
try:
    from .configuration_sykra import SykraConfig
    from .modeling_sykra import SykraForCausalLM
except (ImportError, ValueError):
    from configuration_sykra import SykraConfig
    from modeling_sykra import SykraForCausalLM

# Configure logging / Log yapılandırması
logging.basicConfig(
    format="[%(asctime)s] [%(levelname)s] %(message)s",
    datefmt="%Y-%m-%d %H:%M:%S",
    level=logging.INFO,
)
logger = logging.getLogger("sykra.pipeline")

# Register Sykra to Hugging Face Auto classes
AutoConfig.register("sykra", SykraConfig)
AutoModelForCausalLM.register(SykraConfig, SykraForCausalLM)


# =====================================================================
# 1. Deterministic Seeding & Device Diagnostics
# =====================================================================
def set_seed(seed: int = 42) -> None:
    """Sets deterministic random seeds across all compute backends."""
    torch.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)
        torch.backends.cudnn.deterministic = True
        torch.backends.cudnn.benchmark = False


def get_optimal_device() -> Tuple[torch.device, torch.dtype, bool]:
    """
    Detects hardware capabilities and selects the most optimal precision and device.
    Donanım tespiti yapar; CUDA, MPS veya CPU için en kararlı veri tipini seçer.
    """
    if torch.cuda.is_available():
        device = torch.device("cuda")
        device_name = torch.cuda.get_device_name(0)
        # Check BFloat16 hardware support (Ampere+ / SM 8.0+)
        if torch.cuda.is_bf16_supported():
            amp_dtype = torch.bfloat16
            precision_name = "BFloat16 (Native)"
        else:
            amp_dtype = torch.float16
            precision_name = "Float16 (GradScaler)"
        logger.info(f"Compute Backend: CUDA ({device_name}) | Precision: {precision_name}")
        return device, amp_dtype, True

    elif hasattr(torch.backends, "mps") and torch.backends.mps.is_available():
        device = torch.device("mps")
        logger.info("Compute Backend: Apple Silicon MPS | Precision: Float32")
        return device, torch.float32, False

    else:
        device = torch.device("cpu")
        logger.info("Compute Backend: CPU | Precision: Float32")
        return device, torch.float32, False


# =====================================================================
# 2. Production Dataset with Integrity Checks
# =====================================================================
class MemoryMappedTextDataset(Dataset):
    """
    Safe and chunk-packed text dataset. Validates token count, handles 
    empty files, and ensures statically uniform training batches.
    """
    def __init__(self, file_path: str, tokenizer: PreTrainedTokenizerBase, block_size: int = 512):
        self.block_size = block_size
        self.examples: List[List[int]] = []

        if not os.path.exists(file_path):
            raise FileNotFoundError(
                f"[Dataset Error] Target text file not found at: '{file_path}'. "
                f"Please verify the input path."
            )

        try:
            logger.info(f"Reading corpus: '{file_path}'...")
            with open(file_path, "r", encoding="utf-8", errors="ignore") as f:
                text = f.read()
        except Exception as e:
            raise IOError(f"[Dataset Error] Failed to read '{file_path}': {str(e)}")

        if not text.strip():
            raise ValueError(f"[Dataset Error] The dataset file '{file_path}' is completely empty.")

        tokens = tokenizer.encode(text)
        total_tokens = len(tokens)
        logger.info(f"Corpus tokenized successfully: {total_tokens:,} tokens.")

        if total_tokens < self.block_size:
            logger.warning(
                f"Total tokens ({total_tokens}) is less than block_size ({self.block_size}). "
                f"Packing available tokens into a single chunk."
            )
            self.examples.append(tokens)
        else:
            for i in range(0, total_tokens - self.block_size + 1, self.block_size):
                self.examples.append(tokens[i : i + self.block_size])

        logger.info(f"Total structured training chunks: {len(self.examples)}")

    def __len__(self) -> int:
        return len(self.examples)

    def __getitem__(self, idx: int) -> Dict[str, torch.Tensor]:
        chunk = torch.tensor(self.examples[idx], dtype=torch.long)
        return {"input_ids": chunk, "labels": chunk.clone()}


# =====================================================================
# 3. Execution Pipeline & Model Diagnostics
# =====================================================================
def run_pipeline(args: argparse.Namespace) -> None:
    set_seed(args.seed)
    device, amp_dtype, use_amp = get_optimal_device()

    # 1. Initialize Tokenizer / Tokenizer Yükleme
    try:
        tokenizer = AutoTokenizer.from_pretrained(args.tokenizer_name)
        if tokenizer.pad_token is None:
            tokenizer.pad_token = tokenizer.eos_token
    except Exception as e:
        logger.error(f"Failed to load tokenizer '{args.tokenizer_name}': {str(e)}")
        sys.exit(1)

    # 2. Sykra Model Architecture Configuration
    config = SykraConfig(
        vocab_size=tokenizer.vocab_size,
        hidden_size=args.hidden_size,
        intermediate_size=args.intermediate_size,
        num_hidden_layers=args.num_layers,
        num_attention_heads=args.num_heads,
        num_key_value_heads=args.num_kv_heads,
        head_dim=args.head_dim,
        chunk_size=args.chunk_size,
        max_position_embeddings=args.max_seq_len,
        delta_ratio=args.delta_ratio,
        attention_dropout=args.dropout,
    )

    try:
        model = SykraForCausalLM(config).to(device)
    except Exception as e:
        logger.error(f"Model initialization failed: {str(e)}")
        sys.exit(1)

    if args.gradient_checkpointing:
        model.gradient_checkpointing_enable()
        logger.info("Gradient checkpointing: ENABLED (VRAM efficient).")

    # ------------------------------------------------------------------
    # Kalıcı for-loop çözümü: torch.compile (mode="reduce-overhead").
    # SykraDeltaLayer._forward_chunkwise_parallel içindeki num_chunks
    # döngüsü chunk'lar arası state'e bağımlı olduğu için sırayla işlenmek
    # ZORUNDA (trivial paralelleştirilemez) -- ama asıl maliyet FLOP değil,
    # her chunk'ta ~10 küçük CUDA kernel'inin ayrı ayrı başlatılması
    # (launch overhead). "reduce-overhead" modu bu sırayı bir CUDA Graph'a
    # kaydedip tek seferde replay ediyor; böylece chunk_size'ı elle
    # büyütmeye gerek kalmadan (ki C büyütmek matris tersi maliyetini de
    # artırır) launch overhead'i kalıcı olarak ortadan kaldırıyor.
    # Not: block_size/batch_size sabit kaldığı sürece geçerli; run
    # sırasında shape değişirse (örn. son batch farklı boyutta) yeniden
    # derleme (recompile) tetiklenir, bu da geçici bir yavaşlamaya yol açar.
    # Gradient checkpointing ile birlikte kullanılabilir ama ilk adım(lar)
    # derleme nedeniyle belirgin şekilde yavaş olacaktır (ısınma maliyeti).
    # ------------------------------------------------------------------
    if args.compile:
        if device.type == "cuda":
            logger.info("torch.compile devreye giriyor (mode='reduce-overhead', CUDA Graphs)...")
            model = torch.compile(model, mode="reduce-overhead")
        else:
            logger.warning(
                f"--compile istendi ama cihaz '{device.type}'; reduce-overhead/CUDA Graphs "
                "sadece CUDA'da anlamlı olduğu için atlanıyor."
            )

    # Log architectural specifications
    total_params = sum(p.numel() for p in model.parameters())
    trainable_params = sum(p.numel() for p in model.parameters() if p.requires_grad)
    logger.info(f"Total Parameters: {total_params / 1e6:.2f}M | Trainable: {trainable_params / 1e6:.2f}M")

    # Layer mapping inspection
    delta_count = sum(1 for l in model.model.layers if not l.is_full_attention)
    attn_count = sum(1 for l in model.model.layers if l.is_full_attention)
    logger.info(f"Layer Distribution: {delta_count} Gated DeltaNet layers, {attn_count} Full Attention layers (Ratio {args.delta_ratio}:1).")

    # 3. Load Dataset
    if not os.path.exists(args.dataset_path):
        logger.warning(f"Dataset '{args.dataset_path}' not found. Falling back to synthetic self-diagnostic test.")
        # Create dummy tensors for fast verification
        dummy_input = torch.randint(0, config.vocab_size, (args.batch_size, args.block_size), device=device)
        dataloader = [{"input_ids": dummy_input, "labels": dummy_input.clone()}]
        total_steps = args.epochs
    else:
        try:
            dataset = MemoryMappedTextDataset(args.dataset_path, tokenizer, block_size=args.block_size)
            dataloader = DataLoader(
                dataset,
                batch_size=args.batch_size,
                shuffle=True,
                drop_last=True if len(dataset) > args.batch_size else False,
            )
            total_steps = max(1, (len(dataloader) // args.grad_accum) * args.epochs)
        except Exception as e:
            logger.error(f"Dataset preparation aborted: {str(e)}")
            sys.exit(1)

    # 4. Optimization Setup
    optimizer = torch.optim.AdamW(
        model.parameters(),
        lr=args.lr,
        weight_decay=args.weight_decay,
        betas=(0.9, 0.95),
    )
    
    warmup_steps = max(1, int(total_steps * args.warmup_ratio))
    scheduler = get_cosine_schedule_with_warmup(
        optimizer,
        num_warmup_steps=warmup_steps,
        num_training_steps=total_steps,
    )
    
    scaler = torch.cuda.amp.GradScaler(enabled=(use_amp and amp_dtype == torch.float16))

    # 5. Training Loop / Eğitim Döngüsü
    logger.info(f"Commencing training: {args.epochs} epochs, {total_steps} optimizer steps.")
    model.train()
    step_count = 0
    start_time = time.time()

    try:
        for epoch in range(1, args.epochs + 1):
            epoch_loss = 0.0
            optimizer.zero_grad(set_to_none=True)

            for i, batch in enumerate(dataloader):
                input_ids = batch["input_ids"].to(device, non_blocking=True)
                labels = batch["labels"].to(device, non_blocking=True)

                # Mixed Precision Context
                with torch.cuda.amp.autocast(dtype=amp_dtype, enabled=use_amp):
                    outputs = model(input_ids=input_ids, labels=labels)
                    loss = outputs.loss / args.grad_accum

                if torch.isnan(loss) or torch.isinf(loss):
                    logger.error(f"[Numerical Instability] Loss evaluated to NaN/Inf at Step {step_count + 1}. Aborting.")
                    sys.exit(1)

                scaler.scale(loss).backward()
                epoch_loss += loss.item() * args.grad_accum

                if (i + 1) % args.grad_accum == 0 or (i + 1) == len(dataloader):
                    scaler.unscale_(optimizer)
                    grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=args.max_grad_norm)
                    
                    scaler.step(optimizer)
                    scaler.update()
                    optimizer.zero_grad(set_to_none=True)
                    scheduler.step()

                    step_count += 1

                    if step_count % args.log_interval == 0 or step_count == 1:
                        elapsed = time.time() - start_time
                        tok_sec = (args.block_size * args.batch_size * args.grad_accum) / max(1e-5, elapsed)
                        cur_lr = scheduler.get_last_lr()[0]
                        logger.info(
                            f"Epoch {epoch:02d}/{args.epochs:02d} | Step {step_count:04d}/{total_steps:04d} | "
                            f"Loss: {loss.item() * args.grad_accum:.4f} | Grad Norm: {grad_norm:.2f} | "
                            f"LR: {cur_lr:.2e} | Speed: {tok_sec:.0f} tok/s"
                        )
                        start_time = time.time()

            avg_epoch_loss = epoch_loss / max(1, len(dataloader))
            logger.info(f"Epoch {epoch:02d} Completed. Average Loss: {avg_epoch_loss:.4f}")

    except KeyboardInterrupt:
        logger.warning("Training interrupted by user. Proceeding to evaluation and checkpointing...")

    except RuntimeError as e:
        if "out of memory" in str(e).lower():
            logger.error(
                "\n[CUDA Out of Memory] The allocated batch size or sequence length exceeds VRAM limits.\n"
                "Recommended fixes:\n"
                "  1. Reduce --batch_size (e.g., 2 or 1)\n"
                "  2. Increase --grad_accum (e.g., 8)\n"
                "  3. Enable --gradient_checkpointing"
            )
        else:
            logger.error(f"Runtime error during execution: {str(e)}")
        sys.exit(1)

    # 6. Text Generation & Cache Verification / Çıkarım Testi
    logger.info("Evaluating generative inference and hybrid cache integrity...")
    model.eval()
    prompt = args.inference_prompt
    prompt_ids = tokenizer(prompt, return_tensors="pt").input_ids.to(device)

    try:
        with torch.no_grad():
            generated_ids = model.generate(
                prompt_ids,
                max_new_tokens=args.max_new_tokens,
                use_cache=True,
                do_sample=args.do_sample,
                temperature=args.temperature,
                top_k=args.top_k,
                top_p=args.top_p,
                pad_token_id=tokenizer.eos_token_id,
            )
        output_text = tokenizer.decode(generated_ids[0], skip_special_tokens=True)
        logger.info(f"Generation Prompt : '{prompt}'")
        logger.info(f"Generated Output  :\n{output_text}\n")
    except Exception as e:
        logger.error(f"Autoregressive generation failed: {str(e)}")

    # 7. Model Serialization & Round-Trip Validation
    os.makedirs(args.output_dir, exist_ok=True)
    logger.info(f"Serializing model artifacts to: '{args.output_dir}'...")

    try:
        model.save_pretrained(args.output_dir)
        config.save_pretrained(args.output_dir)
        tokenizer.save_pretrained(args.output_dir)
        logger.info("Weights and configuration files written successfully.")

        # Round-trip sanity check (Reload from disk via AutoModel)
        logger.info("Verifying checkpoint reload integrity...")
        reloaded_model = AutoModelForCausalLM.from_pretrained(args.output_dir).to(device)
        reloaded_model.eval()
        with torch.no_grad():
            _ = reloaded_model(input_ids=prompt_ids)
        logger.info("Round-trip serialization test passed successfully.")
    except Exception as e:
        logger.error(f"Failed during model saving or reloading verification: {str(e)}")
        sys.exit(1)


# =====================================================================
# 4. CLI Argument Parser
# =====================================================================
def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Sykra: Hybrid Gated DeltaNet + Multi-Head Self-Attention Training Pipeline",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )

    # Data and Model paths
    parser.add_argument("--dataset_path", type=str, default="/content/dataset.txt", help="Path to plain text training file.")
    parser.add_argument("--tokenizer_name", type=str, default="gpt2", help="Hugging Face tokenizer identifier.")
    parser.add_argument("--output_dir", type=str, default="./sykra_trained_model", help="Directory to save model checkpoints.")

    # Architectural Hyperparameters
    parser.add_argument("--hidden_size", type=int, default=768, help="Hidden dimension size.")
    parser.add_argument("--intermediate_size", type=int, default=2048, help="SwiGLU intermediate dimension.")
    parser.add_argument("--num_layers", type=int, default=12, help="Total number of decoder layers.")
    parser.add_argument("--num_heads", type=int, default=12, help="Number of query attention heads.")
    parser.add_argument("--num_kv_heads", type=int, default=4, help="Number of key/value heads for GQA.")
    parser.add_argument("--head_dim", type=int, default=64, help="Dimension per head.")
    parser.add_argument("--chunk_size", type=int, default=64, help="Chunk-parallel GEMM block size.")
    parser.add_argument("--delta_ratio", type=int, default=3, help="Ratio of Delta layers to Full Attention layers (e.g. 3:1).")
    parser.add_argument("--max_seq_len", type=int, default=2048, help="Max position embeddings context.")
    parser.add_argument("--dropout", type=float, default=0.0, help="Dropout probability.")

    # Optimization Hyperparameters
    parser.add_argument("--block_size", type=int, default=512, help="Sequence block length per training sample.")
    parser.add_argument("--batch_size", type=int, default=4, help="Micro-batch size per device.")
    parser.add_argument("--grad_accum", type=int, default=4, help="Gradient accumulation steps.")
    parser.add_argument("--epochs", type=int, default=5, help="Number of full training epochs.")
    parser.add_argument("--lr", type=float, default=3e-4, help="Peak learning rate.")
    parser.add_argument("--weight_decay", type=float, default=0.01, help="AdamW weight decay.")
    parser.add_argument("--max_grad_norm", type=float, default=1.0, help="Maximum gradient clipping norm.")
    parser.add_argument("--warmup_ratio", type=float, default=0.05, help="Linear warmup steps ratio.")
    parser.add_argument("--gradient_checkpointing", action="store_true", help="Enable gradient checkpointing to save VRAM.")
    parser.add_argument("--compile", action="store_true", help="Wrap model with torch.compile(mode='reduce-overhead') to eliminate per-chunk CUDA kernel-launch overhead via CUDA Graphs (CUDA only).")
    parser.add_argument("--seed", type=int, default=42, help="Random seed.")
    parser.add_argument("--log_interval", type=int, default=10, help="Logging step frequency.")

    # Generation Parameters
    parser.add_argument("--inference_prompt", type=str, default="Sykra architecture is", help="Prompt text for test generation.")
    parser.add_argument("--max_new_tokens", type=int, default=40, help="Number of tokens to generate after training.")
    parser.add_argument("--do_sample", action="store_true", default=True, help="Enable stochastic sampling.")
    parser.add_argument("--temperature", type=float, default=0.7, help="Sampling temperature.")
    parser.add_argument("--top_k", type=int, default=40, help="Top-k sampling threshold.")
    parser.add_argument("--top_p", type=float, default=0.9, help="Top-p nucleus sampling threshold.")

    return parser.parse_args()


if __name__ == "__main__":
    cli_args = parse_args()
    run_pipeline(cli_args)