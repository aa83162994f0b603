"""
Training engine for KOLMOGformer models  (v0.0.3)

v0.0.3 improvements:
  #T1 — early_stopping_patience: stop training when eval_loss doesn't
        improve for N evaluations (avoids wasted compute).
  #T2 — DataCollatorForCausalLM: truncation was silently applied only
        when max_length is set; now also warns if sequences are longer
        than the model's max_position_embeddings.
  #T3 — Trainer._save_checkpoint: previously saved only model weights;
        now also saves optimizer + scheduler state so training can be
        truly resumed (not just weights resumed).
  #T4 — Trainer.load_checkpoint: now restores optimizer/scheduler state.
  #T5 — get_scheduler: added "constant_with_warmup" scheduler type.
  #T6 — Trainer: bf16 training on CPU now skipped with a warning
        (torch.autocast with bfloat16 on CPU requires PyTorch>=2.1 and
        the old code silently trained in float32 anyway).
  #T7 — DataCollatorForMaskedLM: random-token replacement was drawing
        from the full vocab including special tokens, which could replace
        masked tokens with [PAD]/[BOS]/[EOS].  Now draws from
        [num_special_tokens, vocab_size) to avoid this.
"""

import math
import os
import time
import json
import logging
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

import torch
import torch.nn as nn
from torch import Tensor
from torch.optim import AdamW
from torch.optim.lr_scheduler import LambdaLR
from torch.utils.data import DataLoader, Dataset, RandomSampler, SequentialSampler

logger = logging.getLogger(__name__)
logging.basicConfig(
    format="%(asctime)s | %(levelname)s | %(name)s | %(message)s",
    datefmt="%Y-%m-%d %H:%M:%S",
    level=logging.INFO,
)


# ---------------------------------------------------------------------------
# Training Arguments
# ---------------------------------------------------------------------------

@dataclass
class TrainingArguments:
    output_dir: str = "kolmog_output"

    # Core
    num_train_epochs: int = 3
    per_device_train_batch_size: int = 16
    per_device_eval_batch_size: int = 32
    gradient_accumulation_steps: int = 1
    max_steps: int = -1

    # Optimiser
    learning_rate: float = 3e-4
    weight_decay: float = 0.01
    adam_beta1: float = 0.9
    adam_beta2: float = 0.999
    adam_epsilon: float = 1e-8
    max_grad_norm: float = 1.0

    # Scheduler
    lr_scheduler_type: str = "cosine_with_warmup"
    warmup_steps: int = 0
    warmup_ratio: float = 0.05

    # Mixed precision
    fp16: bool = False
    bf16: bool = False

    # Logging
    logging_steps: int = 50
    logging_dir: Optional[str] = None

    # Evaluation
    eval_steps: int = 500
    evaluation_strategy: str = "steps"   # "steps" | "epoch" | "no"

    # Checkpointing
    save_steps: int = 500
    save_total_limit: int = 3

    # v0.0.3: Early stopping (#T1)
    early_stopping_patience: int = 0
    """Stop training when eval_loss has not improved for this many evaluations.
    0 = disabled (default)."""

    # v0.0.3: Gradient checkpointing (#K14)
    gradient_checkpointing: bool = False
    """Enable gradient checkpointing to reduce memory usage at the cost of speed."""

    # Misc
    seed: int = 42
    dataloader_num_workers: int = 0
    report_to: str = "console"           # "console" | "tensorboard" | "none"

    @property
    def device(self) -> torch.device:
        if torch.cuda.is_available():
            return torch.device("cuda")
        if torch.backends.mps.is_available():
            return torch.device("mps")
        return torch.device("cpu")

    @property
    def use_amp(self) -> bool:
        return self.fp16 or self.bf16

    @property
    def amp_dtype(self) -> torch.dtype:
        return torch.bfloat16 if self.bf16 else torch.float16


# ---------------------------------------------------------------------------
# Data Collators
# ---------------------------------------------------------------------------

class DataCollatorForCausalLM:
    """Pads sequences and creates next-token-prediction labels.

    v0.0.3 fix #T2: warns when sequences exceed model's max position length.
    """

    def __init__(
        self,
        pad_token_id: int = 0,
        max_length: Optional[int] = None,
        warn_length: Optional[int] = None,
    ):
        self.pad_token_id = pad_token_id
        self.max_length = max_length
        self.warn_length = warn_length  # #T2: emit a warning if any seq exceeds this

    def __call__(self, examples: List[Dict[str, Any]]) -> Dict[str, Tensor]:
        input_ids = [ex["input_ids"] for ex in examples]
        if isinstance(input_ids[0], list):
            input_ids = [torch.tensor(ids, dtype=torch.long) for ids in input_ids]
        if self.max_length:
            input_ids = [ids[: self.max_length] for ids in input_ids]
        max_len = max(ids.size(0) for ids in input_ids)
        # #T2: warn if sequences are very long
        if self.warn_length and max_len > self.warn_length:
            logger.warning(
                f"Batch contains sequences of length {max_len} which exceeds "
                f"warn_length={self.warn_length}.  Consider setting max_length."
            )
        B = len(input_ids)
        padded = torch.full((B, max_len), self.pad_token_id, dtype=torch.long)
        labels = torch.full((B, max_len), -100, dtype=torch.long)
        mask = torch.zeros(B, max_len, dtype=torch.long)
        for i, ids in enumerate(input_ids):
            L = ids.size(0)
            padded[i, :L] = ids
            labels[i, :L] = ids
            mask[i, :L] = 1
        return {"input_ids": padded, "labels": labels, "attention_mask": mask}


class DataCollatorForMaskedLM:
    """Random 15% masking for MLM (BERT-style).

    v0.0.3 fix #T7: random-replacement tokens are now drawn from
    [num_special_tokens, vocab_size) to avoid replacing masked tokens
    with special tokens like [PAD] or [BOS].
    """

    def __init__(
        self,
        mask_token_id: int,
        vocab_size: int,
        pad_token_id: int = 0,
        mlm_probability: float = 0.15,
        max_length: Optional[int] = None,
        num_special_tokens: int = 7,  # #T7: skip the first N special tokens
    ):
        self.mask_token_id = mask_token_id
        self.vocab_size = vocab_size
        self.pad_token_id = pad_token_id
        self.mlm_probability = mlm_probability
        self.max_length = max_length
        self.num_special_tokens = num_special_tokens  # #T7

    def __call__(self, examples: List[Dict[str, Any]]) -> Dict[str, Tensor]:
        input_ids = [ex["input_ids"] for ex in examples]
        if isinstance(input_ids[0], list):
            input_ids = [torch.tensor(ids, dtype=torch.long) for ids in input_ids]
        if self.max_length:
            input_ids = [ids[: self.max_length] for ids in input_ids]
        max_len = max(ids.size(0) for ids in input_ids)
        B = len(input_ids)
        padded = torch.full((B, max_len), self.pad_token_id, dtype=torch.long)
        mask = torch.zeros(B, max_len, dtype=torch.long)
        for i, ids in enumerate(input_ids):
            L = ids.size(0)
            padded[i, :L] = ids
            mask[i, :L] = 1
        labels = padded.clone()
        prob_matrix = torch.full(padded.shape, self.mlm_probability)
        prob_matrix[mask == 0] = 0.0
        masked_indices = torch.bernoulli(prob_matrix).bool()
        labels[~masked_indices] = -100
        replace_mask = torch.bernoulli(torch.full(padded.shape, 0.8)).bool() & masked_indices
        padded[replace_mask] = self.mask_token_id
        replace_random = (
            torch.bernoulli(torch.full(padded.shape, 0.5)).bool()
            & masked_indices & ~replace_mask
        )
        # #T7: draw from non-special vocab range
        n_special = max(self.num_special_tokens, 0)
        vocab_range = self.vocab_size - n_special
        if vocab_range > 0:
            random_tokens = torch.randint(n_special, self.vocab_size, padded.shape)
        else:
            random_tokens = torch.randint(self.vocab_size, padded.shape)
        padded[replace_random] = random_tokens[replace_random]
        return {"input_ids": padded, "labels": labels, "attention_mask": mask}


# ---------------------------------------------------------------------------
# Schedulers
# ---------------------------------------------------------------------------

def get_scheduler(
    scheduler_type: str,
    optimizer: torch.optim.Optimizer,
    num_warmup_steps: int,
    num_training_steps: int,
) -> LambdaLR:
    """
    v0.0.3: added "constant_with_warmup" (#T5).
    Supported types: linear | cosine | cosine_with_warmup | constant_with_warmup | constant
    """
    if scheduler_type == "linear":
        def lr_lambda(step):
            if step < num_warmup_steps:
                return float(step) / max(1, num_warmup_steps)
            return max(0.0, float(num_training_steps - step)
                       / max(1, num_training_steps - num_warmup_steps))

    elif scheduler_type in ("cosine", "cosine_with_warmup"):
        def lr_lambda(step):
            if step < num_warmup_steps:
                return float(step) / max(1, num_warmup_steps)
            progress = float(step - num_warmup_steps) / max(1, num_training_steps - num_warmup_steps)
            return max(0.0, 0.5 * (1.0 + math.cos(math.pi * progress)))

    elif scheduler_type == "constant_with_warmup":  # #T5
        def lr_lambda(step):
            if step < num_warmup_steps:
                return float(step) / max(1, num_warmup_steps)
            return 1.0

    elif scheduler_type == "constant":
        def lr_lambda(step):
            return 1.0

    else:
        raise ValueError(
            f"Unknown scheduler_type: '{scheduler_type}'. "
            f"Choose from: linear, cosine, cosine_with_warmup, constant_with_warmup, constant."
        )

    return LambdaLR(optimizer, lr_lambda)


# ---------------------------------------------------------------------------
# Trainer
# ---------------------------------------------------------------------------

class Trainer:
    """
    Full training loop for KOLMOGformer models.

    v0.0.3 improvements:
      #T1 — early stopping via early_stopping_patience
      #T3 — save/load optimizer + scheduler state for true resume
      #T6 — skip bf16 autocast on CPU with warning
    """

    def __init__(
        self,
        model: nn.Module,
        args: TrainingArguments,
        train_dataset: Optional[Dataset] = None,
        eval_dataset: Optional[Dataset] = None,
        data_collator: Optional[Callable] = None,
        compute_metrics: Optional[Callable] = None,
        optimizers: Tuple[Optional[torch.optim.Optimizer], Optional[LambdaLR]] = (None, None),
    ):
        self.model = model
        self.args = args
        self.train_dataset = train_dataset
        self.eval_dataset = eval_dataset
        self.data_collator = data_collator
        self.compute_metrics = compute_metrics
        self.optimizer, self.lr_scheduler = optimizers
        self.global_step = 0
        self.epoch = 0
        self._tb_writer = None
        # #T1: early stopping state
        self._best_eval_loss = float("inf")
        self._no_improve_count = 0
        torch.manual_seed(args.seed)
        os.makedirs(args.output_dir, exist_ok=True)

    # ------------------------------------------------------------------
    # DataLoaders
    # ------------------------------------------------------------------

    def get_train_dataloader(self) -> DataLoader:
        return DataLoader(
            self.train_dataset,
            sampler=RandomSampler(self.train_dataset),
            batch_size=self.args.per_device_train_batch_size,
            collate_fn=self.data_collator,
            num_workers=self.args.dataloader_num_workers,
            pin_memory=self.args.device.type == "cuda",
        )

    def get_eval_dataloader(self) -> DataLoader:
        return DataLoader(
            self.eval_dataset,
            sampler=SequentialSampler(self.eval_dataset),
            batch_size=self.args.per_device_eval_batch_size,
            collate_fn=self.data_collator,
            num_workers=self.args.dataloader_num_workers,
            pin_memory=self.args.device.type == "cuda",
        )

    # ------------------------------------------------------------------
    # Optimiser
    # ------------------------------------------------------------------

    def create_optimizer(self):
        no_decay = {"bias", "LayerNorm.weight", "layer_norm.weight"}
        params = [
            {"params": [p for n, p in self.model.named_parameters()
                        if not any(nd in n for nd in no_decay) and p.requires_grad],
             "weight_decay": self.args.weight_decay},
            {"params": [p for n, p in self.model.named_parameters()
                        if any(nd in n for nd in no_decay) and p.requires_grad],
             "weight_decay": 0.0},
        ]
        self.optimizer = AdamW(
            params,
            lr=self.args.learning_rate,
            betas=(self.args.adam_beta1, self.args.adam_beta2),
            eps=self.args.adam_epsilon,
        )

    def create_scheduler(self, num_training_steps: int):
        warmup = self.args.warmup_steps or int(num_training_steps * self.args.warmup_ratio)
        self.lr_scheduler = get_scheduler(
            self.args.lr_scheduler_type,
            self.optimizer,
            num_warmup_steps=warmup,
            num_training_steps=num_training_steps,
        )

    # ------------------------------------------------------------------
    # Main train loop
    # ------------------------------------------------------------------

    def train(self) -> Dict[str, Any]:
        args = self.args
        device = args.device
        self.model.to(device)

        # #K14: enable gradient checkpointing if requested
        if args.gradient_checkpointing and hasattr(self.model, "enable_gradient_checkpointing"):
            self.model.enable_gradient_checkpointing()
            logger.info("Gradient checkpointing enabled.")

        train_dl = self.get_train_dataloader()
        steps_per_epoch = max(1, len(train_dl) // args.gradient_accumulation_steps)

        if args.max_steps > 0:
            total_steps = args.max_steps
            num_epochs = math.ceil(total_steps / steps_per_epoch)
        else:
            total_steps = steps_per_epoch * args.num_train_epochs
            num_epochs = args.num_train_epochs

        if self.optimizer is None:
            self.create_optimizer()
        if self.lr_scheduler is None:
            self.create_scheduler(total_steps)

        scaler = None
        if args.fp16 and device.type == "cuda":
            scaler = torch.cuda.amp.GradScaler()

        # #T6: warn if bf16 on CPU
        if args.bf16 and device.type == "cpu":
            logger.warning(
                "bf16=True but device is CPU.  bfloat16 autocast on CPU requires "
                "PyTorch >= 2.1 and may fall back to float32 silently.  "
                "Consider using fp16=False on CPU or switching to CUDA."
            )

        if args.report_to == "tensorboard":
            try:
                from torch.utils.tensorboard import SummaryWriter
                log_dir = args.logging_dir or os.path.join(args.output_dir, "logs")
                self._tb_writer = SummaryWriter(log_dir=log_dir)
            except ImportError:
                logger.warning("TensorBoard not available; using console logging.")

        n_params = sum(p.numel() for p in self.model.parameters() if p.requires_grad)
        logger.info("=" * 62)
        logger.info(f"  KOLMOGformer Training  (v0.0.3)")
        logger.info(f"  Trainable parameters : {n_params:,}")
        logger.info(f"  Epochs               : {num_epochs}")
        logger.info(f"  Total steps          : {total_steps}")
        logger.info(f"  Batch size (per dev) : {args.per_device_train_batch_size}")
        logger.info(f"  Grad accum steps     : {args.gradient_accumulation_steps}")
        logger.info(f"  Device               : {device}")
        logger.info(f"  Mixed precision      : {'fp16' if args.fp16 else 'bf16' if args.bf16 else 'no'}")
        if args.early_stopping_patience > 0:
            logger.info(f"  Early stopping       : patience={args.early_stopping_patience}")
        logger.info("=" * 62)

        self.model.train()
        self.optimizer.zero_grad()
        loss_buffer: List[float] = []
        t0 = time.time()
        stop_training = False

        for epoch in range(num_epochs):
            if stop_training:
                break
            self.epoch = epoch
            for step, batch in enumerate(train_dl):
                if args.max_steps > 0 and self.global_step >= args.max_steps:
                    stop_training = True
                    break

                batch = {k: v.to(device) for k, v in batch.items()}

                if args.fp16 and device.type == "cuda":
                    with torch.cuda.amp.autocast():
                        outputs = self.model(**batch)
                elif args.bf16:
                    # #T6: only use autocast when supported
                    try:
                        with torch.autocast(device_type=device.type, dtype=torch.bfloat16):
                            outputs = self.model(**batch)
                    except RuntimeError:
                        outputs = self.model(**batch)
                else:
                    outputs = self.model(**batch)

                loss = outputs.loss / args.gradient_accumulation_steps
                loss_buffer.append(loss.item() * args.gradient_accumulation_steps)

                if scaler is not None:
                    scaler.scale(loss).backward()
                else:
                    loss.backward()

                if (step + 1) % args.gradient_accumulation_steps == 0:
                    if scaler is not None:
                        scaler.unscale_(self.optimizer)
                        nn.utils.clip_grad_norm_(self.model.parameters(), args.max_grad_norm)
                        scaler.step(self.optimizer)
                        scaler.update()
                    else:
                        nn.utils.clip_grad_norm_(self.model.parameters(), args.max_grad_norm)
                        self.optimizer.step()
                    self.lr_scheduler.step()
                    self.optimizer.zero_grad()
                    self.global_step += 1

                    if self.global_step % args.logging_steps == 0:
                        window = loss_buffer[-args.logging_steps:]
                        avg_loss = sum(window) / len(window)
                        lr = self.lr_scheduler.get_last_lr()[0]
                        ppl = math.exp(min(avg_loss, 20))
                        elapsed = time.time() - t0
                        logger.info(
                            f"step {self.global_step:6d}/{total_steps} | "
                            f"epoch {epoch+1}/{num_epochs} | "
                            f"loss {avg_loss:.4f} | ppl {ppl:.2f} | "
                            f"lr {lr:.2e} | {elapsed:.0f}s elapsed"
                        )
                        if self._tb_writer:
                            self._tb_writer.add_scalar("train/loss", avg_loss, self.global_step)
                            self._tb_writer.add_scalar("train/perplexity", ppl, self.global_step)
                            self._tb_writer.add_scalar("train/lr", lr, self.global_step)

                    if (args.evaluation_strategy == "steps"
                            and self.eval_dataset is not None
                            and self.global_step % args.eval_steps == 0):
                        eval_results = self.evaluate()
                        # #T1: early stopping check
                        if args.early_stopping_patience > 0:
                            eval_loss = eval_results.get("eval_loss", float("inf"))
                            if eval_loss < self._best_eval_loss:
                                self._best_eval_loss = eval_loss
                                self._no_improve_count = 0
                            else:
                                self._no_improve_count += 1
                                if self._no_improve_count >= args.early_stopping_patience:
                                    logger.info(
                                        f"Early stopping triggered: eval_loss did not improve "
                                        f"for {args.early_stopping_patience} evaluations."
                                    )
                                    stop_training = True
                                    break
                        self.model.train()

                    if self.global_step % args.save_steps == 0:
                        self._save_checkpoint()

            if args.evaluation_strategy == "epoch" and self.eval_dataset is not None:
                eval_results = self.evaluate()
                if args.early_stopping_patience > 0:
                    eval_loss = eval_results.get("eval_loss", float("inf"))
                    if eval_loss < self._best_eval_loss:
                        self._best_eval_loss = eval_loss
                        self._no_improve_count = 0
                    else:
                        self._no_improve_count += 1
                        if self._no_improve_count >= args.early_stopping_patience:
                            logger.info("Early stopping triggered.")
                            break
                self.model.train()

        self._save_checkpoint(final=True)
        logger.info("Training complete.")
        if self._tb_writer:
            self._tb_writer.close()

        avg_train_loss = sum(loss_buffer) / max(len(loss_buffer), 1)
        return {"global_step": self.global_step, "train_loss": avg_train_loss}

    # ------------------------------------------------------------------
    # Evaluation
    # ------------------------------------------------------------------

    @torch.no_grad()
    def evaluate(self, eval_dataset: Optional[Dataset] = None) -> Dict[str, float]:
        dataset = eval_dataset or self.eval_dataset
        if dataset is None:
            raise ValueError("No evaluation dataset provided.")

        args = self.args
        device = args.device
        self.model.eval()

        dl = (self.get_eval_dataloader() if eval_dataset is None
              else DataLoader(dataset, batch_size=args.per_device_eval_batch_size,
                              collate_fn=self.data_collator))

        total_loss, total_steps = 0.0, 0
        all_preds, all_labels = [], []

        for batch in dl:
            batch = {k: v.to(device) for k, v in batch.items()}
            outputs = self.model(**batch)
            if outputs.loss is not None:
                total_loss += outputs.loss.item()
                total_steps += 1
            if self.compute_metrics is not None and outputs.logits is not None:
                all_preds.extend(outputs.logits.argmax(dim=-1).cpu().tolist())
                if "labels" in batch:
                    all_labels.extend(batch["labels"].cpu().tolist())

        results: Dict[str, float] = {}
        if total_steps > 0:
            avg_loss = total_loss / total_steps
            results["eval_loss"] = avg_loss
            results["eval_perplexity"] = math.exp(min(avg_loss, 20))
        if self.compute_metrics and all_preds:
            results.update(self.compute_metrics(all_preds, all_labels))

        logger.info(
            f"[Eval] step {self.global_step} | "
            + " | ".join(f"{k}: {v:.4f}" for k, v in results.items())
        )
        if self._tb_writer:
            for k, v in results.items():
                self._tb_writer.add_scalar(f"eval/{k}", v, self.global_step)
        return results

    # ------------------------------------------------------------------
    # Checkpointing  (#T3)
    # ------------------------------------------------------------------

    def _save_checkpoint(self, final: bool = False):
        tag = "final" if final else f"checkpoint-{self.global_step}"
        ckpt_dir = os.path.join(self.args.output_dir, tag)
        os.makedirs(ckpt_dir, exist_ok=True)

        if hasattr(self.model, "save_pretrained"):
            self.model.save_pretrained(ckpt_dir)
        else:
            tmp_fd, tmp_path = tempfile.mkstemp(dir=ckpt_dir, suffix=".tmp")
            os.close(tmp_fd)
            torch.save(self.model.state_dict(), tmp_path)
            os.replace(tmp_path, os.path.join(ckpt_dir, "model.pt"))

        # #T3: also save optimizer + scheduler for true resume
        opt_state = {
            "optimizer": self.optimizer.state_dict() if self.optimizer else None,
            "lr_scheduler": self.lr_scheduler.state_dict() if self.lr_scheduler else None,
            "global_step": self.global_step,
            "epoch": self.epoch,
            "best_eval_loss": self._best_eval_loss,
            "no_improve_count": self._no_improve_count,
        }
        opt_path = os.path.join(ckpt_dir, "trainer_state.pt")
        tmp_fd2, tmp_path2 = tempfile.mkstemp(dir=ckpt_dir, suffix=".tmp")
        os.close(tmp_fd2)
        torch.save(opt_state, tmp_path2)
        os.replace(tmp_path2, opt_path)

        # Also write human-readable JSON summary
        json_state = {"global_step": self.global_step, "epoch": self.epoch,
                      "best_eval_loss": self._best_eval_loss}
        with open(os.path.join(ckpt_dir, "trainer_state.json"), "w") as f:
            json.dump(json_state, f)

        logger.info(f"Checkpoint saved → {ckpt_dir}")
        if self.args.save_total_limit > 0 and not final:
            self._rotate_checkpoints()

    def _rotate_checkpoints(self):
        import re
        ckpt_dirs = sorted(
            [d for d in Path(self.args.output_dir).iterdir()
             if d.is_dir() and re.match(r"checkpoint-\d+", d.name)],
            key=lambda d: int(d.name.split("-")[1]),
        )
        while len(ckpt_dirs) > self.args.save_total_limit:
            shutil.rmtree(ckpt_dirs.pop(0))

    def load_checkpoint(self, checkpoint_dir: str):
        """#T4: restores model weights AND optimizer/scheduler state."""
        model_path = os.path.join(checkpoint_dir, "model.pt")
        if os.path.exists(model_path):
            state = torch.load(model_path, map_location=self.args.device, weights_only=True)
            self.model.load_state_dict(state)

        opt_path = os.path.join(checkpoint_dir, "trainer_state.pt")
        if os.path.exists(opt_path):
            opt_state = torch.load(opt_path, map_location="cpu", weights_only=False)
            if self.optimizer and opt_state.get("optimizer"):
                self.optimizer.load_state_dict(opt_state["optimizer"])
            if self.lr_scheduler and opt_state.get("lr_scheduler"):
                self.lr_scheduler.load_state_dict(opt_state["lr_scheduler"])
            self.global_step = opt_state.get("global_step", 0)
            self.epoch = opt_state.get("epoch", 0)
            self._best_eval_loss = opt_state.get("best_eval_loss", float("inf"))
            self._no_improve_count = opt_state.get("no_improve_count", 0)
        else:
            # Legacy: try JSON for step/epoch only
            json_path = os.path.join(checkpoint_dir, "trainer_state.json")
            if os.path.exists(json_path):
                with open(json_path) as f:
                    s = json.load(f)
                self.global_step = s.get("global_step", 0)
                self.epoch = s.get("epoch", 0)

        logger.info(f"Resumed from {checkpoint_dir} (step {self.global_step})")
