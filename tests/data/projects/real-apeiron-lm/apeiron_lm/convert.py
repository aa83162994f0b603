# Copyright 2026 Ömür Bera Işık  —  Apache-2.0
"""
Model Conversion Pipeline  (v0.0.3.2)
=====================================
Convert pre-trained Transformer models (GPT-2, BERT, etc.) to Apeiron LM
format using knowledge distillation.

CLI usage
---------
    apeiron-convert --from gpt2 --output ./my_model
    apeiron-convert --from bert-base-uncased --output ./my_bert_model --steps 500
    apeiron-convert --from gpt2-medium --output ./my_model --preset base --epochs 3

Python API
----------
    from apeiron_lm.convert import ModelConverter, ConversionConfig
    cfg  = ConversionConfig(teacher_name="gpt2", output_dir="./my_model")
    conv = ModelConverter(cfg)
    result = conv.convert()

Design
------
The conversion works in three stages:

1. Teacher extraction
   - Load the source Transformer using transformers.AutoModel
   - Extract hidden states on a set of byte-encoded prompts
   - The teacher's last hidden layer is used as soft targets

2. Distillation
   - Apeiron ByteEncoder is trained to match the teacher's hidden states
   - Loss: L_distill = MSE(v_apeiron, v_teacher_projected)
   - A small linear projector aligns teacher-dim → apeiron-dim
   - The projector is thrown away after distillation

3. SDPS warm-start (optional)
   - After distillation, optionally run SDPS to re-initialise weights
   - This combines gradient-free precision with the distilled knowledge

Caveats
-------
- The teacher uses token-level representations; Apeiron is byte-level.
  We use the teacher's tokenizer to produce token embeddings, then
  embed those back as byte sequences for the Apeiron input.
- Because teacher and student operate at different granularities,
  the distillation is approximate and serves as an intelligent warm-start
  rather than perfect knowledge transfer.
- Tokenizer is NOT added to Apeiron — it is only used to generate
  training data from the teacher during conversion.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Union

import torch
import torch.nn as nn
import torch.nn.functional as F

logger = logging.getLogger(__name__)


# ---------------------------------------------------------------------------
# ConversionConfig
# ---------------------------------------------------------------------------

@dataclass
class ConversionConfig:
    """
    Configuration for model conversion.

    Parameters
    ----------
    teacher_name : str
        HuggingFace model name or local path.
        e.g. "gpt2", "bert-base-uncased", "distilgpt2", "facebook/opt-125m"
    output_dir : str
        Where to save the converted Apeiron model.
    preset : str
        Apeiron model size: "tiny" | "small" | "base" | "large"
    distill_steps : int
        Number of distillation steps.
    distill_lr : float
        Learning rate for distillation.
    distill_batch_size : int
    distill_seq_len : int
        Length of byte sequences used for distillation.
    n_prompts : int
        Number of synthetic prompts to generate from the teacher.
    use_sdps_warmup : bool
        Whether to apply SDPS after distillation.
    device : str or None
    seed : int
    """
    teacher_name:       str   = "gpt2"
    output_dir:         str   = "converted_model"
    preset:             str   = "small"
    distill_steps:      int   = 1000
    distill_lr:         float = 1e-4
    distill_batch_size: int   = 16
    distill_seq_len:    int   = 128
    n_prompts:          int   = 256
    use_sdps_warmup:    bool  = True
    device:             Optional[str] = None
    seed:               int   = 42
    save_distill_data:  bool  = False   # Save synthetic prompts for inspection
    teacher_layer:      int   = -1      # Which teacher layer to distil from (-1 = last)
    lora_after_distill: bool  = False   # Apply LoRA after distillation for further FT



# ---------------------------------------------------------------------------
# Distillation projector
# ---------------------------------------------------------------------------

class DistillProjector(nn.Module):
    """
    Linear projection from teacher hidden dim to Apeiron latent dim.

    Thrown away after conversion — not part of the final Apeiron model.
    """
    def __init__(self, teacher_dim: int, apeiron_dim: int) -> None:
        super().__init__()
        self.proj = nn.Linear(teacher_dim, apeiron_dim, bias=True)
        nn.init.xavier_uniform_(self.proj.weight)
        nn.init.zeros_(self.proj.bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.proj(x)


# ---------------------------------------------------------------------------
# ModelConverter
# ---------------------------------------------------------------------------

class ModelConverter:
    """
    Convert a Transformer model to Apeiron LM via distillation.

    Parameters
    ----------
    config : ConversionConfig

    Examples
    --------
    >>> cfg  = ConversionConfig(teacher_name="gpt2", output_dir="./gpt2_apeiron")
    >>> conv = ModelConverter(cfg)
    >>> result = conv.convert()
    >>> print(result["saved_to"])
    """

    def __init__(self, config: ConversionConfig) -> None:
        self.cfg = config
        self._setup_device()

    def _setup_device(self) -> None:
        if self.cfg.device:
            self.device = torch.device(self.cfg.device)
        elif torch.cuda.is_available():
            self.device = torch.device("cuda")
        elif torch.backends.mps.is_available():
            self.device = torch.device("mps")
        else:
            self.device = torch.device("cpu")

    # ── Public API ────────────────────────────────────────────────────────

    def convert(self) -> Dict:
        """
        Run the full conversion pipeline.

        Returns
        -------
        dict with keys: saved_to, n_steps, elapsed, teacher_dim, apeiron_dim
        """
        t0 = time.perf_counter()
        cfg = self.cfg

        torch.manual_seed(cfg.seed)

        logger.info("=" * 60)
        logger.info("Apeiron Model Converter v0.0.3")
        logger.info("Teacher: %s", cfg.teacher_name)
        logger.info("Preset:  %s", cfg.preset)
        logger.info("Device:  %s", self.device)
        logger.info("=" * 60)

        # Step 1: Load teacher
        teacher, tokenizer, teacher_dim = self._load_teacher()

        # Step 2: Build Apeiron model
        from apeiron_lm import ApeironConfig, ApeironLM
        apeiron_cfg = getattr(ApeironConfig, cfg.preset)()
        student     = ApeironLM(apeiron_cfg).to(self.device)

        logger.info(
            "Student: %d params  Teacher: %s",
            sum(p.numel() for p in student.parameters()),
            cfg.teacher_name,
        )

        # Step 3: Synthesise distillation data
        data_bytes, data_hidden = self._synthesise_distill_data(
            teacher, tokenizer, teacher_dim
        )

        # Step 4: Distillation
        self._distil(student, data_bytes, data_hidden, teacher_dim, apeiron_cfg.latent_dim)

        # Step 5: Optional SDPS warm-start on distilled data
        if cfg.use_sdps_warmup and data_bytes.shape[0] >= 4:
            from apeiron_lm.sdps import sdps_fit
            logger.info("SDPS warm-start on distilled data...")
            sdps_fit(student, data_bytes[:min(512, len(data_bytes))].to(self.device))

        # Step 6: Save
        out_dir = Path(cfg.output_dir)
        student.save(out_dir)

        # Write conversion metadata
        meta = {
            "teacher":       cfg.teacher_name,
            "preset":        cfg.preset,
            "distill_steps": cfg.distill_steps,
            "n_prompts":     cfg.n_prompts,
            "teacher_dim":   teacher_dim,
            "apeiron_dim":   apeiron_cfg.latent_dim,
            "elapsed_s":     time.perf_counter() - t0,
        }
        import json
        (out_dir / "conversion_meta.json").write_text(json.dumps(meta, indent=2))

        logger.info("Conversion complete!  Model saved to: %s", out_dir)

        return {
            "saved_to":    str(out_dir),
            "n_steps":     cfg.distill_steps,
            "elapsed":     meta["elapsed_s"],
            "teacher_dim": teacher_dim,
            "apeiron_dim": apeiron_cfg.latent_dim,
        }

    # ── Step 1: Load teacher ──────────────────────────────────────────────

    def _load_teacher(self):
        """Load teacher model from HuggingFace hub."""
        try:
            from transformers import AutoModel, AutoTokenizer
        except ImportError as e:
            raise ImportError(
                "Model conversion requires `transformers`: pip install transformers"
            ) from e

        logger.info("Loading teacher model: %s ...", self.cfg.teacher_name)
        tokenizer = AutoTokenizer.from_pretrained(self.cfg.teacher_name)
        if tokenizer.pad_token is None:
            tokenizer.pad_token = tokenizer.eos_token

        teacher = AutoModel.from_pretrained(self.cfg.teacher_name)
        teacher.eval()
        teacher.to(self.device)

        # Freeze teacher — no grad required
        for p in teacher.parameters():
            p.requires_grad = False

        # Detect hidden dimension
        teacher_dim = None
        for attr in ("hidden_size", "d_model", "n_embd", "dim"):
            cfg_obj = teacher.config if hasattr(teacher, "config") else None
            if cfg_obj and hasattr(cfg_obj, attr):
                teacher_dim = getattr(cfg_obj, attr)
                break
        if teacher_dim is None:
            # Probe with dummy input
            dummy = torch.zeros(1, 4, dtype=torch.long, device=self.device)
            with torch.no_grad():
                out = teacher(dummy, output_hidden_states=True)
            hidden = out.hidden_states[-1] if hasattr(out, "hidden_states") else out.last_hidden_state
            teacher_dim = hidden.shape[-1]

        logger.info("Teacher hidden dim: %d", teacher_dim)
        return teacher, tokenizer, teacher_dim

    # ── Step 2: Synthesise distillation data ─────────────────────────────

    def _synthesise_distill_data(
        self,
        teacher,
        tokenizer,
        teacher_dim: int,
    ):
        """
        Generate byte sequences and corresponding teacher hidden states.

        Uses teacher's vocabulary to generate short prompts, encodes them
        as bytes (via tokenizer → text → UTF-8), and extracts the teacher's
        mean-pooled hidden state as distillation target.
        """
        cfg   = self.cfg
        n     = cfg.n_prompts
        max_l = cfg.distill_seq_len

        logger.info("Synthesising %d distillation samples ...", n)

        all_bytes:  List[torch.Tensor] = []
        all_hidden: List[torch.Tensor] = []

        # Get vocabulary for sampling
        vocab    = list(tokenizer.get_vocab().keys())
        # Filter to printable tokens only
        vocab    = [w for w in vocab if w.isprintable() and len(w) >= 2]
        if not vocab:
            vocab = ["hello", "world", "the", "a", "is"]

        batch_size = min(16, n)

        for start in range(0, n, batch_size):
            end      = min(start + batch_size, n)
            n_batch  = end - start
            # Generate random pseudo-sentences from vocab
            prompts = []
            rng = torch.Generator()
            rng.manual_seed(cfg.seed + start)
            for bi in range(n_batch):
                n_words = int(torch.randint(3, 20, (1,), generator=rng).item())
                idx     = torch.randint(0, len(vocab), (n_words,), generator=rng)
                words   = [vocab[i.item()] for i in idx]
                # Mix in structured patterns: some sentences, some code-like
                if bi % 3 == 0:
                    prompts.append("The " + " ".join(words[:n_words//2]) + " is " + " ".join(words[n_words//2:]))
                elif bi % 3 == 1:
                    prompts.append("def " + words[0].lower() + "(" + ", ".join(words[1:3]) + "):")
                else:
                    prompts.append(" ".join(words))

            # Tokenise for teacher
            enc = tokenizer(
                prompts,
                return_tensors     = "pt",
                padding            = True,
                truncation         = True,
                max_length         = 64,
            )
            enc = {k: v.to(self.device) for k, v in enc.items()}

            with torch.no_grad():
                out = teacher(**enc, output_hidden_states=True)
            layer_idx = cfg.teacher_layer  # -1 = last
            if hasattr(out, "hidden_states") and out.hidden_states:
                hidden = out.hidden_states[layer_idx]   # (B, T, D)
            elif hasattr(out, "last_hidden_state"):
                hidden = out.last_hidden_state
            else:
                raise RuntimeError("Cannot extract hidden states from teacher.")

            # Mean-pool over sequence
            attn_mask = enc.get("attention_mask", None)
            if attn_mask is not None:
                mask_f = attn_mask.float().unsqueeze(-1)
                h_pool = (hidden * mask_f).sum(1) / mask_f.sum(1).clamp(min=1)
            else:
                h_pool = hidden.mean(1)

            # Convert prompts to byte sequences
            for i, prompt in enumerate(prompts):
                bseq = list(prompt.encode("utf-8"))[:max_l]
                # Pad/truncate to max_l
                bseq = bseq + [0] * max(0, max_l - len(bseq))
                all_bytes.append(torch.tensor(bseq, dtype=torch.long))
            all_hidden.append(h_pool.cpu())

        data_bytes  = torch.stack(all_bytes, dim=0)        # (N, max_l)
        data_hidden = torch.cat(all_hidden, dim=0)          # (N, D_teacher)

        logger.info(
            "Distillation data: bytes=%s  hidden=%s",
            tuple(data_bytes.shape), tuple(data_hidden.shape),
        )
        return data_bytes, data_hidden

    # ── Step 3: Distillation ──────────────────────────────────────────────

    def _distil(
        self,
        student:      "ApeironLM",
        data_bytes:   torch.Tensor,
        data_hidden:  torch.Tensor,
        teacher_dim:  int,
        apeiron_dim:  int,
    ) -> None:
        """Train the student ByteEncoder to match teacher hidden states."""
        cfg = self.cfg
        logger.info(
            "Distillation: %d steps  lr=%.2e  batch=%d",
            cfg.distill_steps, cfg.distill_lr, cfg.distill_batch_size,
        )

        projector = DistillProjector(teacher_dim, apeiron_dim).to(self.device)

        # Optimise student byte_encoder + projector together
        params = list(student.byte_encoder.parameters()) + list(projector.parameters())
        opt    = torch.optim.AdamW(params, lr=cfg.distill_lr, weight_decay=1e-4)
        # Cosine annealing with 3 warm restarts for better exploration
        n_restarts = 3
        T0   = max(cfg.distill_steps // (n_restarts + 1), 1)
        sched = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(
            opt, T_0=T0, T_mult=1, eta_min=1e-7
        )

        n_data = data_bytes.shape[0]
        student.train()

        for step in range(cfg.distill_steps):
            # Random mini-batch
            idx     = torch.randperm(n_data)[:cfg.distill_batch_size]
            b_bytes = data_bytes[idx].to(self.device)
            b_hid   = data_hidden[idx].to(self.device)

            # Student forward
            v_student = student.byte_encoder(b_bytes)           # (B, apeiron_dim)

            # Project teacher to student space
            v_teacher = projector(b_hid.float())                 # (B, apeiron_dim)

            # MSE distillation loss
            loss_mse = F.mse_loss(v_student, v_teacher)

            # Cosine alignment loss
            cos_loss = 1.0 - F.cosine_similarity(v_student, v_teacher).mean()

            # KL divergence on L2-normalised distributions (soft targets)
            p_student = F.log_softmax(v_student / 0.5, dim=-1)
            p_teacher = F.softmax(v_teacher / 0.5, dim=-1).detach()
            kl_loss   = F.kl_div(p_student, p_teacher, reduction="batchmean")

            total = loss_mse + 0.1 * cos_loss + 0.05 * kl_loss.clamp(min=0, max=10)

            opt.zero_grad()
            total.backward()
            nn.utils.clip_grad_norm_(params, 1.0)
            opt.step()
            sched.step()

            if (step + 1) % 100 == 0 or step == 0:
                logger.info(
                    "Distillation step %d/%d  mse=%.4f  cos=%.4f  kl=%.4f  lr=%.2e",
                    step + 1, cfg.distill_steps,
                    loss_mse.item(), cos_loss.item(), kl_loss.item() if not kl_loss.isnan() else -1.0,
                    sched.get_last_lr()[0],
                )

        student.eval()
        logger.info("Distillation complete.")


# ---------------------------------------------------------------------------
# CLI entry point
# ---------------------------------------------------------------------------

def _build_arg_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog        = "apeiron-convert",
        description = "Convert a Transformer model to Apeiron LM format.",
        formatter_class = argparse.RawDescriptionHelpFormatter,
        epilog = """
Examples:
  apeiron-convert --from gpt2 --output ./my_gpt2
  apeiron-convert --from bert-base-uncased --output ./my_bert --preset base
  apeiron-convert --from gpt2-medium --output ./my_model --steps 2000 --epochs 1
        """,
    )
    p.add_argument("--from",   dest="teacher", required=True,
                   help="HuggingFace model name or local path")
    p.add_argument("--output", required=True,
                   help="Output directory for the converted Apeiron model")
    p.add_argument("--preset", default="small",
                   choices=["tiny", "small", "base", "large"],
                   help="Apeiron model size preset (default: small)")
    p.add_argument("--steps",  type=int, default=1000,
                   help="Number of distillation steps (default: 1000)")
    p.add_argument("--batch",  type=int, default=16,
                   help="Distillation batch size (default: 16)")
    p.add_argument("--prompts", type=int, default=256,
                   help="Number of synthetic prompts (default: 256)")
    p.add_argument("--no-sdps", action="store_true",
                   help="Skip SDPS warm-start after distillation")
    p.add_argument("--device", default=None,
                   help="Device string (e.g. cuda, cpu, mps)")
    p.add_argument("--lr", type=float, default=1e-4,
                   help="Distillation learning rate (default: 1e-4)")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--verbose", action="store_true")
    return p


def main_convert(argv: Optional[list] = None) -> None:
    """Entry point for the apeiron-convert CLI."""
    parser = _build_arg_parser()
    args   = parser.parse_args(argv)

    level = logging.DEBUG if args.verbose else logging.INFO
    logging.basicConfig(
        level  = level,
        format = "[%(asctime)s] %(levelname)s — %(message)s",
        datefmt = "%H:%M:%S",
    )

    cfg = ConversionConfig(
        teacher_name       = args.teacher,
        output_dir         = args.output,
        preset             = args.preset,
        distill_steps      = args.steps,
        distill_lr         = args.lr,
        distill_batch_size = args.batch,
        n_prompts          = args.prompts,
        use_sdps_warmup    = not args.no_sdps,
        device             = args.device,
        seed               = args.seed,
    )

    converter = ModelConverter(cfg)
    result    = converter.convert()

    print(f"\n✓  Conversion complete in {result['elapsed']:.1f}s")
    print(f"   Saved to: {result['saved_to']}")
    print(f"   Teacher dim:  {result['teacher_dim']}")
    print(f"   Apeiron dim:  {result['apeiron_dim']}")


if __name__ == "__main__":
    main_convert()
