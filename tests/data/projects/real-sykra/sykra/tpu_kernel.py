"""
Sykra Architecture - TPU Kernel & Distributed Training Engine
Optimized for Google Cloud TPU v5e / v6e / v4 via PyTorch/XLA and SPMD execution.
"""

import os
import sys
import time
import math
import logging
from typing import Optional, Tuple, Union, Dict, Any

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader

# Optional XLA imports with graceful error handling
try:
    import torch_xla
    import torch_xla.core.xla_model as xm
    import torch_xla.distributed.parallel_loader as pl
    import torch_xla.distributed.xla_multiprocessing as xmp
    _XLA_AVAILABLE = True
except ImportError:
    _XLA_AVAILABLE = False

from .configuration_sykra import SykraConfig
from .modeling_sykra import SykraForCausalLM, SykraRMSNorm, repeat_kv

logger = logging.getLogger("sykra.tpu")


# =====================================================================
# 1. XLA-Native TPU Delta Layer
# =====================================================================
class TPUGatedDeltaLayer(nn.Module):
    def __init__(self, config: SykraConfig, layer_idx: int):
        super().__init__()
        self.config = config
        self.layer_idx = layer_idx
        self.hidden_size = config.hidden_size
        self.num_heads = config.num_attention_heads
        self.num_kv_heads = config.num_key_value_heads
        self.head_dim = config.head_dim
        self.chunk_size = getattr(config, "chunk_size", 64)
        self.num_kv_groups = self.num_heads // self.num_kv_heads

        self.q_proj = nn.Linear(self.hidden_size, self.num_heads * self.head_dim, bias=False)
        self.k_proj = nn.Linear(self.hidden_size, self.num_kv_heads * self.head_dim, bias=False)
        self.v_proj = nn.Linear(self.hidden_size, self.num_kv_heads * self.head_dim, bias=False)
        
        self.beta_proj = nn.Linear(self.hidden_size, self.num_heads, bias=True)
        self.alpha_proj = nn.Linear(self.hidden_size, self.num_heads, bias=True)
        
        self.group_norm = SykraRMSNorm(self.head_dim, eps=config.rms_norm_eps)
        self.out_proj = nn.Linear(self.num_heads * self.head_dim, self.hidden_size, bias=False)


        self._reset_parameters()

    def _reset_parameters(self):
        """
        Katman ağırlıklarını ve bias'larını Hugging Face LLM standardında başlatır.

        out_proj, residual stream'e yazan bir çıkış projeksiyonu olduğu için
        modeling_sykra.py::SykraModel._init_depth_scaled_weights ile aynı
        depth-scaled std (std / sqrt(2 * num_hidden_layers)) kullanılarak
        başlatılır -- bu sayede to_tpu() sonrası davranış, ana modeldeki
        depth-scaling ile tutarlı kalır. q/k/v/beta/alpha projeksiyonları
        residual'a doğrudan katkı biriktirmediği için standart std ile
        başlatılmaya devam eder.
        """
        std = getattr(self.config, "initializer_range", 0.02)
        num_layers = getattr(self.config, "num_hidden_layers", 1)
        scaled_std = std / math.sqrt(2 * max(1, num_layers))

        for module in [self.q_proj, self.k_proj, self.v_proj, self.beta_proj, self.alpha_proj]:
            if isinstance(module, nn.Linear):
                module.weight.data.normal_(mean=0.0, std=std)
                if module.bias is not None:
                    module.bias.data.zero_()

        self.out_proj.weight.data.normal_(mean=0.0, std=scaled_std)
        if self.out_proj.bias is not None:
            self.out_proj.bias.data.zero_()

    def _tpu_triangular_inverse(self, M: torch.Tensor) -> torch.Tensor:
        """
        XLA Autocast'ı devre dışı bırakarak matris tersini kesin FP32'de çözer.
        """
        orig_dtype = M.dtype
        # XLA AMP'nin matmul'u sessizce BF16'ya çekmesini engelliyoruz:
        with torch.autocast(device_type="xla", enabled=False):
            M_f32 = M.to(torch.float32)
            I = torch.eye(M.shape[-1], device=M.device, dtype=torch.float32)
            out = I - M_f32
            M_pow = M_f32
            num_iters = int(math.log2(self.chunk_size)) - 1
            for _ in range(max(1, num_iters)):
                M_pow = torch.matmul(M_pow, M_pow)
                out = torch.matmul(out, (I + M_pow))
                
        return out.to(orig_dtype)

    def _forward_chunkwise_tpu(self, q, k, v, beta, log_alpha, initial_state=None):
        bsz, heads, seq_len, d = q.shape
        C = self.chunk_size

        if seq_len % C != 0:
            raise ValueError(f"[TPU Shape Error] Sequence length ({seq_len}) must be multiple of chunk_size ({C}).")

        num_chunks = seq_len // C

        q = q.view(bsz, heads, num_chunks, C, d)
        k = k.view(bsz, heads, num_chunks, C, d)
        v = v.view(bsz, heads, num_chunks, C, d)
        beta = beta.view(bsz, heads, num_chunks, C, 1)

        # FP32 decay hesabı ve clamp koruması
        log_alpha = log_alpha.view(bsz, heads, num_chunks, C, 1).to(torch.float32)
        log_alpha = torch.clamp(log_alpha, min=-20.0, max=0.0)
        g = torch.cumsum(log_alpha, dim=-2)
        decay = torch.exp(g).to(q.dtype)

        if initial_state is not None and torch.is_tensor(initial_state):
            S = initial_state.to(q.dtype)
        else:
            S = torch.zeros(bsz, heads, d, d, device=q.device, dtype=q.dtype)

        strict_lower_mask = torch.tril(torch.ones(C, C, device=q.device, dtype=torch.bool), diagonal=-1)
        causal_mask = torch.tril(torch.ones(C, C, device=q.device, dtype=torch.bool))

        chunk_outputs = []
        NEG_INF = -1e4  # TPU BF16 gradyanı için güvenli negatif sonsuz

        for i in range(num_chunks):
            q_c = q[:, :, i]
            k_c = k[:, :, i]
            v_c = v[:, :, i]
            b_c = beta[:, :, i]
            g_c = g[:, :, i]
            decay_c = decay[:, :, i]

            # FP32 fark matrisi
            g_diff = g_c - g_c.transpose(-1, -2)
            decay_mat_strict = torch.exp(torch.where(strict_lower_mask, g_diff, torch.full_like(g_diff, NEG_INF))).to(q.dtype)
            decay_mat_causal = torch.exp(torch.where(causal_mask, g_diff, torch.full_like(g_diff, NEG_INF))).to(q.dtype)

            # Parallel Correction Matrix
            gram_kk = torch.matmul(k_c, k_c.transpose(-1, -2))
            M = b_c * gram_kk * decay_mat_strict
            inv_lhs = self._tpu_triangular_inverse(M)

            # Linear system solve
            pred_v_0 = torch.matmul(k_c, S)
            v_base = b_c * (v_c - decay_c * pred_v_0)
            U = torch.matmul(inv_lhs, v_base)

            # GEMM
            intra_attn = torch.matmul(q_c, k_c.transpose(-1, -2)) * decay_mat_causal
            out_intra = torch.matmul(intra_attn, U)
            out_inter = torch.matmul(q_c * decay_c, S.transpose(-1, -2))
            chunk_outputs.append(out_intra + out_inter)

            # State update
            decay_last = torch.exp(torch.clamp(g_c[:, :, -1:, :] - g_c, min=-20.0, max=0.0)).to(q.dtype)
            U_decayed = U * decay_last
            S_delta = torch.matmul(U_decayed.transpose(-1, -2), k_c)
            total_decay_chunk = torch.exp(g_c[:, :, -1:, :]).squeeze(-2).unsqueeze(-1).to(q.dtype)
            S = total_decay_chunk * S + S_delta

        out = torch.cat(chunk_outputs, dim=2)
        return out, S

    def forward(
        self,
        hidden_states: torch.Tensor,
        attention_mask: Optional[torch.Tensor] = None,
        past_state: Optional[torch.Tensor] = None,
        use_cache: bool = False,
    ) -> Tuple[torch.Tensor, Optional[torch.Tensor]]:
        bsz, seq_len, _ = hidden_states.shape

        q = self.q_proj(hidden_states).view(bsz, seq_len, self.num_heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(hidden_states).view(bsz, seq_len, self.num_kv_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(hidden_states).view(bsz, seq_len, self.num_kv_heads, self.head_dim).transpose(1, 2)

        k = repeat_kv(k, self.num_kv_groups)
        v = repeat_kv(v, self.num_kv_groups)

        k = F.normalize(k, p=2, dim=-1)
        q = F.normalize(q, p=2, dim=-1)

        beta = torch.sigmoid(self.beta_proj(hidden_states)).transpose(1, 2).unsqueeze(-1)
        log_alpha = -F.softplus(self.alpha_proj(hidden_states)).transpose(1, 2).unsqueeze(-1)

        if attention_mask is not None:
            cur_mask = attention_mask[:, -seq_len:].unsqueeze(1).unsqueeze(-1).to(beta.dtype)
            beta = beta * cur_mask
            log_alpha = torch.where(cur_mask == 0, torch.zeros_like(log_alpha), log_alpha)

        out, next_state = self._forward_chunkwise_tpu(q, k, v, beta, log_alpha, initial_state=past_state)
        out = self.group_norm(out)
        out = out.transpose(1, 2).contiguous().view(bsz, seq_len, -1)
        return self.out_proj(out), (next_state if use_cache else None)


# =====================================================================
# 2. Static Dataset Utility for TPU
# =====================================================================
class TPUStaticDataset(Dataset):
    """
    Reads text data and builds statically sized token blocks to prevent dynamic XLA graph re-compilations.
    """
    def __init__(self, file_path: str, tokenizer: Any, block_size: int = 512):
        if not os.path.exists(file_path):
            raise FileNotFoundError(
                f"[Dataset Error] Training file not found at: '{file_path}'. "
                f"Please verify the dataset path."
            )

        with open(file_path, "r", encoding="utf-8", errors="ignore") as f:
            text = f.read()

        if len(text.strip()) == 0:
            raise ValueError(f"[Dataset Error] The dataset file '{file_path}' is empty.")

        tokens = tokenizer.encode(text)
        if len(tokens) < block_size:
            raise ValueError(
                f"[Dataset Error] Total tokens ({len(tokens)}) is smaller than block_size ({block_size}). "
                f"Provide more text or reduce block_size."
            )

        self.examples = []
        for i in range(0, len(tokens) - block_size + 1, block_size):
            self.examples.append(tokens[i : i + block_size])

    def __len__(self):
        return len(self.examples)

    def __getitem__(self, idx):
        chunk = torch.tensor(self.examples[idx], dtype=torch.long)
        return {"input_ids": chunk, "labels": chunk.clone()}


# =====================================================================
# 3. Distributed TPU Trainer API
# =====================================================================
class SykraTPUTrainer:
    """
    High-level API for distributed SPMD training on Google Cloud TPU (v4, v5e, v6e).
    """
    def __init__(
        self,
        config: SykraConfig,
        dataset_path: str,
        tokenizer: Any,
        output_dir: str = "./sykra_tpu_checkpoints",
        batch_size_per_core: int = 4,
        gradient_accumulation_steps: int = 2,
        learning_rate: float = 3e-4,
        weight_decay: float = 0.01,
        epochs: int = 5,
        block_size: int = 512,
        log_every: int = 10,
    ):
        self.config = config
        self.dataset_path = dataset_path
        self.tokenizer = tokenizer
        self.output_dir = output_dir
        self.batch_size_per_core = batch_size_per_core
        self.gradient_accumulation_steps = gradient_accumulation_steps
        self.learning_rate = learning_rate
        self.weight_decay = weight_decay
        self.epochs = epochs
        self.block_size = block_size
        self.log_every = log_every

        self._validate_environment()

    def _validate_environment(self):
        if not _XLA_AVAILABLE:
            raise RuntimeError(
                "\n[TPU Environment Error] 'torch_xla' is not installed or detected.\n"
                "To train on TPU, install PyTorch/XLA:\n"
                "  pip install torch-xla\n"
                "Or ensure you are running inside a TPU-enabled Google Cloud VM / Colab runtime."
            )

    def _worker(self, index: int):
        device = xm.xla_device()
        world_size = xm.xrt_world_size()
        rank = xm.get_ordinal()

        if rank == 0:
            print(f"--- Sykra TPU Engine Initialized ---")
            print(f"TPU Cores (World Size): {world_size}")
            print(f"Global Batch Size     : {self.batch_size_per_core * world_size * self.gradient_accumulation_steps}")

        # Instantiate Model and replace Delta layers with TPU-Optimized variants
        model = SykraForCausalLM(self.config)
        for layer in model.model.layers:
            if not layer.is_full_attention:
                layer.delta_layer = TPUGatedDeltaLayer(self.config, layer.layer_idx)

        model = model.to(device)

        # Prepare Dataset
        dataset = TPUStaticDataset(self.dataset_path, self.tokenizer, block_size=self.block_size)
        sampler = torch.utils.data.distributed.DistributedSampler(
            dataset,
            num_replicas=world_size,
            rank=rank,
            shuffle=True,
            drop_last=True
        )
        dataloader = DataLoader(
            dataset,
            batch_size=self.batch_size_per_core,
            sampler=sampler,
            num_workers=0,
            drop_last=True
        )

        optimizer = torch.optim.AdamW(
            model.parameters(),
            lr=self.learning_rate,
            weight_decay=self.weight_decay,
            betas=(0.9, 0.95)
        )

        total_steps = (len(dataloader) // self.gradient_accumulation_steps) * self.epochs
        scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=max(1, total_steps))

        model.train()
        step_count = 0
        start_time = time.time()

        for epoch in range(1, self.epochs + 1):
            sampler.set_epoch(epoch)
            para_loader = pl.ParallelLoader(dataloader, [device]).per_device_loader(device)

            for i, batch in enumerate(para_loader):
                input_ids = batch["input_ids"]
                labels = batch["labels"]

                # TPU v5e/v6e native BFloat16 context
                with torch.autocast(device_type="xla", dtype=torch.bfloat16):
                    outputs = model(input_ids=input_ids, labels=labels)
                    loss = outputs.loss / self.gradient_accumulation_steps

                loss.backward()

                if (i + 1) % self.gradient_accumulation_steps == 0:
                    # All-reduce gradients across cores and trigger XLA compilation
                    xm.optimizer_step(optimizer)
                    optimizer.zero_grad()
                    scheduler.step()
                    step_count += 1

                    if rank == 0 and (step_count % self.log_every == 0 or step_count == 1):
                        cur_loss = loss.item() * self.gradient_accumulation_steps
                        tok_sec = (self.block_size * self.batch_size_per_core * world_size * self.gradient_accumulation_steps) / max(1e-5, (time.time() - start_time))
                        print(f"[Rank 0] Epoch {epoch:02d}/{self.epochs:02d} | Step {step_count:04d}/{total_steps:04d} | Loss: {cur_loss:.4f} | Speed: {tok_sec:.0f} tok/s")
                        start_time = time.time()

        # Save checkpoint from master rank
        if rank == 0:
            os.makedirs(self.output_dir, exist_ok=True)
            print(f"\nSaving model artifacts to: {self.output_dir}")
            xm.save(model.state_dict(), os.path.join(self.output_dir, "pytorch_model.bin"))
            self.config.save_pretrained(self.output_dir)
            self.tokenizer.save_pretrained(self.output_dir)
            print("Checkpoint successfully written.")

    def train(self):
        """Spawns distributed workers on all available TPU cores."""
        xmp.spawn(self._worker, args=(), nprocs=None, start_method="spawn")


def train_on_tpu(
    config: SykraConfig,
    dataset_path: str,
    tokenizer: Any,
    **kwargs
):
    """Functional convenience wrapper to start TPU training."""
    trainer = SykraTPUTrainer(config=config, dataset_path=dataset_path, tokenizer=tokenizer, **kwargs)
    trainer.train()