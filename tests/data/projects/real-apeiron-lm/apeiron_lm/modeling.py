# Copyright 2026 Ömür Bera Işık  —  Apache-2.0
"""
ApeironLM  (v0.0.3)
===================
Byte-native parallel language model with unified latent reasoning.

Generation pipeline:
    raw bytes
        → ByteEncoder          (Transformer encoder + mean-pool  → v ∈ ℝ^C)
        → NoveltyEstimator     (2-layer MLP                      → N ∈ [0,1])
        → LatentExplorer       (conditional, parallel, K cands.  → c* ∈ ℝ^C)
        → UnifiedLatentReasoner
              ├─ LengthPredictor (MLP                            → N_pred bytes)
              ├─ CausalDWConv1D  (local coherence injection)     [NEW v0.0.3]
              └─ ByteProjector   (position-modulated, parallel   → output bytes)
        → UTF-8 decode

v0.0.3 changes
--------------
* Adaptive tau annealing — grad_norm passed to anneal_tau for smarter schedule.
* k-means prototype warm-start hook (call model.warmup_prototypes(loader)).
* Training-speed patch: label_smoothing support in loss (forwarded from config).
* generate() now auto-moves input to model device if needed.
* New method: generate_stream() for streaming single-character-at-a-time output.
* New method: encode() to expose the latent vector for downstream use.
* Bug fix: global_step was only incremented in training forward, but not
  synchronised with the trainer's own counter → both now agree.
* Bug fix: input_mask convention clarified in docstring (True = padding).
* Bug fix: generate_batch with a single text no longer crashes on empty mask.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Callable, Dict, Generator, Iterable, List, Optional, Tuple, Union

import torch
import torch.nn as nn
import torch.nn.functional as F

from apeiron_lm.configuration import ApeironConfig
from apeiron_lm.nn.byte_encoder      import ByteEncoder
from apeiron_lm.nn.novelty_estimator import NoveltyEstimator
from apeiron_lm.nn.latent_explorer   import LatentExplorer
from apeiron_lm.nn.unified_reasoner  import UnifiedLatentReasoner

WEIGHTS_FILE = "apeiron_lm.pt"
CONFIG_FILE  = "apeiron_config.json"


class ApeironLM(nn.Module):
    """
    Full Apeiron LM architecture.

    Parameters
    ----------
    config : ApeironConfig

    Examples
    --------
    Quick text generation (untrained — output is random bytes):

    >>> config = ApeironConfig.tiny()
    >>> model  = ApeironLM(config)
    >>> text   = model.generate_text("Hello, world!")

    Training loop sketch:

    >>> out = model(input_bytes, target_bytes, target_lengths)
    >>> out["loss"].backward()
    """

    def __init__(self, config: ApeironConfig) -> None:
        super().__init__()

        self.config = config

        self.byte_encoder = ByteEncoder(
            latent_dim  = config.latent_dim,
            num_layers  = config.encoder_layers,
            num_heads   = config.encoder_heads,
            ff_dim      = config.encoder_ff_dim,
            dropout     = config.encoder_dropout,
        )
        self.novelty_estimator = NoveltyEstimator(
            latent_dim  = config.latent_dim,
            hidden_dim  = config.novelty_hidden,
        )
        self.latent_explorer = LatentExplorer(
            latent_dim      = config.latent_dim,
            num_prototypes  = config.num_prototypes,
            num_candidates  = config.num_candidates,
            score_hidden    = config.explorer_score_hidden,
            tau_init        = config.tau_init,
            tau_min         = config.tau_min,
        )
        self.reasoner = UnifiedLatentReasoner(
            latent_dim  = config.latent_dim,
            n_max       = config.n_max,
            len_hidden  = config.len_hidden,
            conv_kernel = config.conv_kernel,
        )

        self.register_buffer("global_step", torch.tensor(0, dtype=torch.long))

        self.apply(self._init_weights)

    @staticmethod
    def _init_weights(module: nn.Module) -> None:
        if isinstance(module, nn.Linear):
            nn.init.xavier_uniform_(module.weight)
            if module.bias is not None:
                nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
        elif isinstance(module, nn.LayerNorm):
            nn.init.ones_(module.weight)
            nn.init.zeros_(module.bias)

    # ── Training forward ──────────────────────────────────────────────────

    def forward(
        self,
        input_bytes:    torch.Tensor,
        target_bytes:   torch.Tensor,
        target_lengths: torch.Tensor,
        input_mask:     Optional[torch.Tensor] = None,
        label_smoothing: float = 0.0,
    ) -> Dict[str, torch.Tensor]:
        """
        Full training forward pass.

        Parameters
        ----------
        input_bytes : torch.Tensor  shape (B, L_in)
            Integer byte values in [0, 255].
        target_bytes : torch.Tensor  shape (B, N_max)
            Ground-truth output bytes.  Padding positions must be −1.
        target_lengths : torch.Tensor  shape (B,)  dtype long
        input_mask : torch.Tensor or None  shape (B, L_in)
            Boolean padding mask — True = padding position.
        label_smoothing : float
            Label smoothing for L_CE.  Forwarded from TrainingArguments.

        Returns
        -------
        dict with keys: loss, loss_ce, loss_len, loss_div, loss_novelty,
                        n_pred, logits, novelty_scores
        """
        # ── 1. Encode ──────────────────────────────────────────────────────
        v = self.byte_encoder(input_bytes, mask=input_mask)

        # ── 2. Novelty estimation ──────────────────────────────────────────
        novelty_scores = self.novelty_estimator(v)
        novel_mask     = self.novelty_estimator.is_novel(v)

        step = int(self.global_step.item())
        if self.training and step < self.config.explorer_warmup_steps:
            novel_mask = torch.ones(v.shape[0], dtype=torch.bool, device=v.device)

        # ── 3. Latent exploration (conditional) ───────────────────────────
        if novel_mask.any():
            c_star, candidates = self.latent_explorer(v)
            v_final = torch.where(novel_mask.unsqueeze(-1), c_star, v)
        else:
            v_final    = v
            candidates = None

        # ── 4. Length prediction + byte generation ─────────────────────────
        logits, n_pred = self.reasoner(v_final, n_out=self.config.n_max)

        # ── 5. Compute losses ──────────────────────────────────────────────
        # Align target length to generated sequence length
        N_gen   = logits.size(1)
        target_ce = target_bytes[:, :N_gen]
        # Pad target if it is shorter than N_gen
        if target_ce.size(1) < N_gen:
            pad = torch.full(
                (target_ce.size(0), N_gen - target_ce.size(1)),
                -1, dtype=torch.long, device=target_ce.device,
            )
            target_ce = torch.cat([target_ce, pad], dim=1)

        L_CE = F.cross_entropy(
            logits.reshape(-1, 256),
            target_ce.reshape(-1),
            ignore_index    = -1,
            label_smoothing = label_smoothing,
        )

        n_continuous = self.reasoner.predict_length_continuous(v_final)
        L_len = F.huber_loss(
            n_continuous,
            target_lengths.float(),
            delta=1.0,
        )

        if candidates is not None:
            L_div = LatentExplorer.diversity_loss(candidates)
        else:
            L_div = torch.zeros(1, device=v.device).squeeze()

        with torch.no_grad():
            per_sample_ce = F.cross_entropy(
                logits.detach().reshape(-1, 256),
                target_ce.reshape(-1),
                ignore_index = -1,
                reduction    = "none",
            ).view(logits.size(0), -1).mean(dim=-1)
        L_novelty = self.novelty_estimator.novelty_loss(novelty_scores, per_sample_ce)

        # ── 6. Anneal tau + increment step ────────────────────────────────
        if self.training:
            self.latent_explorer.anneal_tau(
                factor    = self.config.tau_anneal_factor,
                # grad_norm is wired in by the trainer after clip_grad_norm_
            )
            self.global_step.data.add_(1)

        # ── 7. Total loss ─────────────────────────────────────────────────
        loss = (
            L_CE
            + self.config.alpha * L_len
            + self.config.beta  * L_div
            + self.config.gamma * L_novelty
        )

        return {
            "loss":           loss,
            "loss_ce":        L_CE.detach(),
            "loss_len":       L_len.detach(),
            "loss_div":       L_div.detach(),
            "loss_novelty":   L_novelty.detach(),
            "n_pred":         n_pred,
            "logits":         logits,
            "novelty_scores": novelty_scores,
        }

    # ── Encoding ──────────────────────────────────────────────────────────

    @torch.no_grad()
    def encode(
        self,
        text:       str,
        device:     Optional[torch.device] = None,
        encoding:   str = "utf-8",
        explore:    bool = True,
    ) -> torch.Tensor:
        """
        Encode a string to its latent vector.

        Useful for semantic similarity, clustering, and retrieval tasks.

        Parameters
        ----------
        text : str
        device : torch.device or None
        encoding : str
        explore : bool
            If True (default), apply LatentExplorer when novelty gate fires.

        Returns
        -------
        v : torch.Tensor  shape (1, C)
        """
        if device is None:
            device = next(self.parameters()).device
        raw = torch.tensor(list(text.encode(encoding)), dtype=torch.long, device=device)
        raw = raw.unsqueeze(0)
        v   = self.byte_encoder(raw)
        if explore:
            novel_mask = self.novelty_estimator.is_novel(v)
            if novel_mask.any():
                c_star, _ = self.latent_explorer(v)
                v = torch.where(novel_mask.unsqueeze(-1), c_star, v)
        return v

    @torch.no_grad()
    def encode_batch(
        self,
        texts:    List[str],
        device:   Optional[torch.device] = None,
        encoding: str  = "utf-8",
        explore:  bool = True,
        pad_token: int = 0,
    ) -> torch.Tensor:
        """
        Encode a list of strings to a batch of latent vectors.

        Parameters
        ----------
        texts : List[str]
        device : torch.device or None
        encoding : str
        explore : bool
        pad_token : int

        Returns
        -------
        v : torch.Tensor  shape (B, C)
        """
        if device is None:
            device = next(self.parameters()).device
        encoded = [list(t.encode(encoding)) for t in texts]
        max_len  = max(len(e) for e in encoded)
        ids  = torch.full((len(texts), max_len), pad_token, dtype=torch.long, device=device)
        mask = torch.ones((len(texts), max_len), dtype=torch.bool, device=device)
        for i, seq in enumerate(encoded):
            ids[i, :len(seq)]  = torch.tensor(seq, dtype=torch.long, device=device)
            mask[i, :len(seq)] = False
        v = self.byte_encoder(ids, mask=mask)
        if explore:
            novel_mask = self.novelty_estimator.is_novel(v)
            if novel_mask.any():
                c_star, _ = self.latent_explorer(v)
                v = torch.where(novel_mask.unsqueeze(-1), c_star, v)
        return v

    # ── Inference ─────────────────────────────────────────────────────────

    @torch.no_grad()
    def generate(
        self,
        input_bytes:  torch.Tensor,
        input_mask:   Optional[torch.Tensor] = None,
        max_generate: Optional[int]          = None,
        temperature:  float                  = 1.0,
        top_k:        Optional[int]          = None,
        top_p:        Optional[float]        = None,
    ) -> List[bytes]:
        """
        Full inference pipeline: raw bytes → list of raw bytes objects.

        Parameters
        ----------
        input_bytes : torch.Tensor  shape (B, L) or (L,)
        input_mask  : torch.Tensor or None  shape (B, L)
            True = padding position.
        max_generate : int or None
        temperature : float
        top_k : int or None
        top_p : float or None

        Returns
        -------
        List[bytes]
        """
        if input_bytes.dim() == 1:
            input_bytes = input_bytes.unsqueeze(0)

        # Auto-move to model device
        device = next(self.parameters()).device
        input_bytes = input_bytes.to(device)
        if input_mask is not None:
            input_mask = input_mask.to(device)

        v = self.byte_encoder(input_bytes, mask=input_mask)

        novel_mask = self.novelty_estimator.is_novel(v)
        if novel_mask.any():
            c_star, _ = self.latent_explorer(v)
            v_final = torch.where(novel_mask.unsqueeze(-1), c_star, v)
        else:
            v_final = v

        use_sampling = (
            temperature != 1.0 or top_k is not None or top_p is not None
        )
        if use_sampling:
            byte_ids, n_pred = self.reasoner.sample(
                v_final,
                temperature  = temperature,
                top_k        = top_k,
                top_p        = top_p,
                max_generate = max_generate,
            )
        else:
            byte_ids, n_pred = self.reasoner.decode(
                v_final, max_generate=max_generate
            )

        results: List[bytes] = []
        for i in range(byte_ids.size(0)):
            length    = int(n_pred[i].item())
            token_seq = byte_ids[i, :length].cpu().tolist()
            results.append(bytes(token_seq))

        return results

    @torch.no_grad()
    def generate_text(
        self,
        text:         str,
        device:       Optional[torch.device] = None,
        max_generate: Optional[int]          = None,
        temperature:  float                  = 1.0,
        top_k:        Optional[int]          = None,
        top_p:        Optional[float]        = None,
        encoding:     str                    = "utf-8",
    ) -> str:
        """
        Convenience wrapper: text → text (UTF-8 round-trip).

        Parameters
        ----------
        text : str
        device : torch.device or None
        max_generate : int or None
        temperature : float
        top_k : int or None
        top_p : float or None
        encoding : str

        Returns
        -------
        str
        """
        if device is None:
            device = next(self.parameters()).device

        raw = torch.tensor(
            list(text.encode(encoding)), dtype=torch.long, device=device
        )
        output_bytes = self.generate(
            raw,
            max_generate = max_generate,
            temperature  = temperature,
            top_k        = top_k,
            top_p        = top_p,
        )[0]
        return output_bytes.decode(encoding, errors="replace")

    @torch.no_grad()
    def generate_batch(
        self,
        texts:        List[str],
        device:       Optional[torch.device] = None,
        max_generate: Optional[int]          = None,
        temperature:  float                  = 1.0,
        top_k:        Optional[int]          = None,
        top_p:        Optional[float]        = None,
        encoding:     str                    = "utf-8",
        pad_token:    int                    = 0,
    ) -> List[str]:
        """
        Batched text generation.

        Parameters
        ----------
        texts : List[str]
        device : torch.device or None
        max_generate : int or None
        temperature : float
        top_k : int or None
        top_p : float or None
        encoding : str
        pad_token : int

        Returns
        -------
        List[str]
        """
        if device is None:
            device = next(self.parameters()).device

        if not texts:
            return []

        encoded = [list(t.encode(encoding)) for t in texts]
        max_len  = max(len(e) for e in encoded)

        ids  = torch.full((len(texts), max_len), pad_token, dtype=torch.long, device=device)
        mask = torch.ones((len(texts), max_len), dtype=torch.bool, device=device)

        for i, seq in enumerate(encoded):
            if seq:
                ids[i, :len(seq)]  = torch.tensor(seq, dtype=torch.long, device=device)
                mask[i, :len(seq)] = False

        output_bytes_list = self.generate(
            ids,
            input_mask   = mask,
            max_generate = max_generate,
            temperature  = temperature,
            top_k        = top_k,
            top_p        = top_p,
        )
        return [b.decode(encoding, errors="replace") for b in output_bytes_list]

    @torch.no_grad()
    def generate_stream(
        self,
        text:         str,
        device:       Optional[torch.device] = None,
        max_generate: Optional[int]          = None,
        temperature:  float                  = 1.0,
        top_k:        Optional[int]          = None,
        top_p:        Optional[float]        = None,
        encoding:     str                    = "utf-8",
    ) -> Generator[str, None, None]:
        """
        Streaming generation — yields one decoded character at a time.

        Because Apeiron generates in parallel, the full output is generated
        first and then yielded character-by-character for streaming UX.

        Parameters
        ----------
        text : str
        device : torch.device or None
        max_generate : int or None
        temperature : float
        top_k : int or None
        top_p : float or None
        encoding : str

        Yields
        ------
        str
            One character at a time.

        Example
        -------
        >>> for char in model.generate_stream("Hello"):
        ...     print(char, end="", flush=True)
        """
        output = self.generate_text(
            text,
            device       = device,
            max_generate = max_generate,
            temperature  = temperature,
            top_k        = top_k,
            top_p        = top_p,
            encoding     = encoding,
        )
        for char in output:
            yield char

    # ── Prototype warm-start ───────────────────────────────────────────────

    @torch.no_grad()
    def warmup_prototypes(
        self,
        data_source: Iterable,
        n_batches:   int = 50,
        n_iter:      int = 20,
        input_key:   str = "input_bytes",
        mask_key:    str = "input_mask",
    ) -> None:
        """
        Run k-means warm-start on the prototype bank before training.

        Collects latent vectors from the first ``n_batches`` batches and
        calls :meth:`LatentExplorer.kmeans_init_prototypes`.

        Parameters
        ----------
        data_source : Iterable
            Any iterable of dicts with ``input_bytes`` (and optionally
            ``input_mask``).
        n_batches : int
            Number of batches to collect embeddings from.
        n_iter : int
            k-means iterations.
        input_key : str
        mask_key : str

        Example
        -------
        >>> from torch.utils.data import DataLoader
        >>> loader = DataLoader(train_dataset, batch_size=32)
        >>> model.warmup_prototypes(loader, n_batches=50)
        >>> trainer.train()
        """
        device = next(self.parameters()).device
        latents = []
        self.eval()
        for i, batch in enumerate(data_source):
            if i >= n_batches:
                break
            ids  = batch[input_key].to(device)
            mask = batch.get(mask_key)
            if mask is not None:
                mask = mask.to(device)
            v = self.byte_encoder(ids, mask=mask)
            latents.append(v.cpu())
        if latents:
            v_data = torch.cat(latents, dim=0)
            LatentExplorer.kmeans_init_prototypes(
                self.latent_explorer, v_data, n_iter=n_iter
            )

    # ── Parameter count ────────────────────────────────────────────────────

    def param_count(self) -> Dict[str, int]:
        """Return trainable parameter counts by component."""
        def _count(m: nn.Module) -> int:
            return sum(p.numel() for p in m.parameters() if p.requires_grad)
        return {
            "byte_encoder":      _count(self.byte_encoder),
            "novelty_estimator": _count(self.novelty_estimator),
            "latent_explorer":   _count(self.latent_explorer),
            "reasoner":          _count(self.reasoner),
            "total":             _count(self),
        }

    def param_count_str(self) -> str:
        """Human-readable parameter count table."""
        counts = self.param_count()
        lines  = ["Component              Parameters", "-" * 40]
        for k, v in counts.items():
            lines.append(f"{k:<22}  {v:>12,}")
        return "\n".join(lines)

    # ── Saving / Loading ───────────────────────────────────────────────────

    def save(self, directory: Union[str, Path]) -> None:
        """
        Save model weights and config to a directory.

        Creates:
        * ``apeiron_lm.pt``       — PyTorch state dict
        * ``apeiron_config.json`` — serialised ApeironConfig

        Parameters
        ----------
        directory : str or Path
        """
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        torch.save(self.state_dict(), directory / WEIGHTS_FILE)
        self.config.save(directory)

    @classmethod
    def load(
        cls,
        directory: Union[str, Path],
        device:    Optional[Union[str, torch.device]] = None,
        strict:    bool = True,
    ) -> "ApeironLM":
        """
        Load a model from a saved checkpoint directory.

        Parameters
        ----------
        directory : str or Path
        device : str or torch.device or None  (defaults to CPU)
        strict : bool

        Returns
        -------
        ApeironLM
        """
        directory  = Path(directory)
        config     = ApeironConfig.load(directory)
        model      = cls(config)
        state_path = directory / WEIGHTS_FILE
        if not state_path.exists():
            raise FileNotFoundError(
                f"No weights file found at {state_path}. "
                "Make sure the directory was saved with model.save()."
            )
        state_dict = torch.load(state_path, map_location=device or "cpu", weights_only=True)
        model.load_state_dict(state_dict, strict=strict)
        # Ensure global_step is synchronised after loading
        if "global_step" in state_dict:
            model.global_step.data.copy_(state_dict["global_step"])
        if device is not None:
            model = model.to(device)
        return model

    # ── Utilities ──────────────────────────────────────────────────────────

    def __repr__(self) -> str:
        counts = self.param_count()
        return (
            f"ApeironLM(\n"
            f"  config={self.config!r},\n"
            f"  total_params={counts['total']:,}\n"
            f")"
        )

    def get_config(self) -> ApeironConfig:
        """Return the model's configuration object."""
        return self.config
