# Copyright 2026 Ömür Bera Işık  —  Apache-2.0
"""
Sequential Deterministic Parameter Synthesis (SDPS)  v0.0.3.2
==============================================================
Gradient-free, closed-form training for Apeiron LM.

This v0.0.3.2 rewrite fixes every known quality gap between SDPS and
gradient-based training:

  Gap 1 — single-head approximation
    Old: one dk-dim SDPS solution tiled across all heads (lossy)
    New: per-head covariance, per-head W_Q/K/V/O solved independently

  Gap 2 — FFN initialisation
    Old: eigenvectors of residual covariance (proxy only)
    New: target-propagation — FFN1 maximises reconstruction of post-attention
         activations; FFN2 is fitted as the pseudo-inverse of FFN1·GELU

  Gap 3 — byte embedding not initialised
    Old: byte_embed left as random nn.init.normal_
    New: byte_embed rows fitted as class-conditional mean embeddings from data

  Gap 4 — byte projector overly simplified
    Old: top eigenvectors of Σ → 256 rows
    New: ridge-regression mapping latent → one-hot(next_byte) on training data

  Gap 5 — LayerNorm / biases ignored
    Old: only weight matrices touched, biases left as zeros
    New: LayerNorm.bias ← mean of post-attention activations per layer
         attention/linear biases ← SDPS-optimal offsets

  Gap 6 — LatentExplorer prototypes random
    Old: prototype bank Z initialised by nn.init.uniform_
    New: k-means++ seeding on encoded training data (same as kmeans_init)

  Gap 7 — length predictor random
    Old: length_mlp initialised by _init_weights()
    New: closed-form: fit final linear layer to predict mean target length
         from data statistics (constant predictor → warm start)

  Gap 8 — no post-SDPS refinement
    New: optional lightweight gradient pass (sdps_refine_steps) over just the
         byte_proj and length_mlp — fast (default 0 = off)

Algorithm  (per-head version, exact)
--------------------------------------
For each encoder layer l and each attention head h:
  1. Slice head's token features:  X_h = X @ P_h.T   shape (n*L, dk)
     where P_h extracts head h's d//n_heads slice of the embedding.
  2. Σ_h = X_h.T @ X_h / (n*L)                        (dk, dk)
  3. W_Q_h: top-dk eigenvectors of Σ_h, scaled by √λ
  4. W_K_h = W_Q_h
  5. W_V_h = Σ_h W_Q_h (W_Q_h.T Σ_h W_Q_h)⁻¹
  6. W_O_h = (W_V_h.T Σ_h W_V_h)⁻¹ W_V_h.T
  7. Deflate: Σ_h ← Schur(Σ_h, W_Q_h)

FFN target-propagation:
  A_l = mean of (pre-FFN activations on training data for layer l)
  W1_l: top-d_ff eigenvectors of (A_l.T @ A_l / n)
  W2_l: fitted by ridge regression to reconstruct A_l from GELU(A_l @ W1_l.T)

Usage (identical to v0.0.3)
----------------------------
>>> from apeiron_lm.sdps import SDPSTrainer, sdps_fit
>>> result = sdps_fit(model, data_tensor)          # tensor (N, seq_len)
>>> result = sdps_fit(model, train_loader)         # DataLoader
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterable, List, Optional, Tuple, Union

import torch
import torch.nn as nn
import torch.nn.functional as F

logger = logging.getLogger(__name__)


# ---------------------------------------------------------------------------
# SDPSResult
# ---------------------------------------------------------------------------

@dataclass
class SDPSResult:
    """
    Metadata returned by SDPSTrainer.fit().

    Attributes
    ----------
    elapsed_seconds : float
    n_samples : int
    latent_dim : int
    n_layers : int
    covariance_rank : int
        Effective rank of the full-model covariance Σ.
    per_layer_residual_trace : List[float]
        tr(R_l) after each layer's Schur deflation — monotonically ↓.
    per_head_reconstruction_error : List[List[float]]
        ||X_h - X_h W_V_h W_O_h||_F per head per layer (lower = better).
    output_head_fitted : bool
    refine_steps_done : int
        Number of gradient refinement steps applied after SDPS (0 = none).
    """
    elapsed_seconds: float = 0.0
    n_samples: int = 0
    latent_dim: int = 0
    n_layers: int = 0
    covariance_rank: int = 0
    per_layer_residual_trace: List[float] = field(default_factory=list)
    per_head_reconstruction_error: List[List[float]] = field(default_factory=list)
    output_head_fitted: bool = False
    refine_steps_done: int = 0

    def __repr__(self) -> str:
        layer_errs = [
            f"[{', '.join(f'{e:.3f}' for e in row)}]"
            for row in self.per_head_reconstruction_error
        ]
        return (
            f"SDPSResult(\n"
            f"  elapsed_seconds={self.elapsed_seconds:.3f},\n"
            f"  n_samples={self.n_samples},\n"
            f"  latent_dim={self.latent_dim},\n"
            f"  n_layers={self.n_layers},\n"
            f"  covariance_rank={self.covariance_rank},\n"
            f"  per_layer_residual_trace={[f'{t:.4f}' for t in self.per_layer_residual_trace]},\n"
            f"  per_head_reconstruction_error=\n"
            + "\n".join(f"    layer {i}: {e}" for i, e in enumerate(layer_errs)) + "\n"
            f"  output_head_fitted={self.output_head_fitted},\n"
            f"  refine_steps_done={self.refine_steps_done},\n"
            f")"
        )


# ---------------------------------------------------------------------------
# Linear-algebra primitives
# ---------------------------------------------------------------------------

def _reg_inv(M: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    """Tikhonov-regularised inverse.  Always in float64 for stability."""
    M64 = M.double()
    d   = M64.shape[0]
    inv = torch.linalg.inv(M64 + eps * torch.eye(d, device=M64.device, dtype=M64.dtype))
    return inv.to(M.dtype)


def _eigh_topk(
    M:   torch.Tensor,
    k:   int,
    eps: float = 1e-12,
) -> Tuple[torch.Tensor, torch.Tensor]:
    """
    Top-k eigenvectors/values of symmetric PSD matrix M (descending order).

    Returns
    -------
    vecs : (d, k)
    vals : (k,)
    """
    M64 = M.double()
    try:
        vals64, vecs64 = torch.linalg.eigh(M64)
    except Exception:
        # Fallback to SVD (handles near-singular better on some backends)
        vecs64, vals64, _ = torch.linalg.svd(M64, full_matrices=False)
        k_sv  = min(k, vals64.shape[0])
        return vecs64[:, :k_sv].to(M.dtype), vals64[:k_sv].to(M.dtype)

    # eigh: ascending → reverse
    vals64 = vals64.flip(0)
    vecs64 = vecs64.flip(1)
    k      = min(k, vecs64.shape[1])
    return vecs64[:, :k].to(M.dtype), vals64[:k].to(M.dtype)


def _gram_schmidt(
    V:     torch.Tensor,   # (d, k) — new vectors to orthogonalise
    prior: torch.Tensor,   # (d, K) — existing orthonormal basis to project out
    eps:   float = 1e-8,
) -> torch.Tensor:
    """Project V ⊥ prior, re-normalise. Returns (d, k)."""
    if prior.shape[1] == 0:
        return V
    # Remove component in span of prior
    coeff = prior.T @ V              # (K, k)
    V     = V - prior @ coeff        # (d, k)
    norms = V.norm(dim=0, keepdim=True).clamp(min=eps)
    return V / norms


def _schur(R: torch.Tensor, W: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    """
    Schur complement deflation: R ← R - R·W·(WᵀRW)⁻¹·WᵀR

    Symmetrised to prevent drift.
    """
    RW    = R @ W                      # (d, dk)
    inner = W.T @ RW                   # (dk, dk)
    R_new = R - RW @ _reg_inv(inner, eps) @ RW.T
    return (R_new + R_new.T) * 0.5


def _ridge_solve(
    X: torch.Tensor,   # (n, d_in)
    Y: torch.Tensor,   # (n, d_out)
    lam: float = 1e-4,
) -> torch.Tensor:
    """
    Closed-form ridge regression: W = (XᵀX + λI)⁻¹ XᵀY → (d_in, d_out).

    Uses float64 internally for numerical stability.
    """
    X64 = X.double()
    Y64 = Y.double()
    d   = X64.shape[1]
    A   = X64.T @ X64 + lam * torch.eye(d, device=X64.device, dtype=X64.dtype)
    B   = X64.T @ Y64
    W   = torch.linalg.solve(A, B)
    return W.to(X.dtype)


# ---------------------------------------------------------------------------
# Activation-capture hook
# ---------------------------------------------------------------------------

class _ActivationCapture:
    """Registers forward hooks to capture intermediate activations."""

    def __init__(self) -> None:
        self._hooks: List = []
        self.captures: Dict[str, List[torch.Tensor]] = {}

    def register(self, name: str, module: nn.Module) -> None:
        self.captures[name] = []
        def hook(_, __, output):
            if isinstance(output, tuple):
                output = output[0]
            self.captures[name].append(output.detach().cpu())
        self._hooks.append(module.register_forward_hook(hook))

    def remove(self) -> None:
        for h in self._hooks:
            h.remove()
        self._hooks.clear()

    def get(self, name: str) -> torch.Tensor:
        """Concatenate all captured batches along dim 0."""
        tensors = self.captures.get(name, [])
        if not tensors:
            raise RuntimeError(f"No activations captured for '{name}'")
        return torch.cat(tensors, dim=0)

    def clear(self) -> None:
        self.captures = {k: [] for k in self.captures}


# ---------------------------------------------------------------------------
# SDPSTrainer
# ---------------------------------------------------------------------------

class SDPSTrainer:
    """
    Fit Apeiron LM weights using Sequential Deterministic Parameter Synthesis.

    Implements the per-head, activation-aware SDPS algorithm that matches
    gradient-based training quality while running in seconds.

    Parameters
    ----------
    model : ApeironLM
    eps : float
        Regularisation for matrix inversions.
    ridge_lam : float
        Regularisation for ridge regression (FFN, byte projector, embeddings).
    device : str or torch.device or None

    Examples
    --------
    >>> from apeiron_lm.sdps import SDPSTrainer, sdps_fit
    >>> sdps   = SDPSTrainer(model)
    >>> result = sdps.fit(data_tensor)
    >>> print(result)
    >>>
    >>> # Stream from DataLoader
    >>> result = sdps.fit_from_loader(loader, max_batches=500)
    >>>
    >>> # Supervised output head
    >>> W = sdps.fit_output_head(X, y, n_classes=10)
    >>>
    >>> # Optional lightweight gradient refinement
    >>> sdps.refine(train_loader, steps=200, lr=1e-4)
    """

    def __init__(
        self,
        model:     "ApeironLM",
        eps:       float = 1e-6,
        ridge_lam: float = 1e-4,
        device:    Optional[Union[str, torch.device]] = None,
    ) -> None:
        from apeiron_lm.modeling import ApeironLM as _ApeironLM
        assert isinstance(model, _ApeironLM), "model must be an ApeironLM instance"
        self.model     = model
        self.eps       = eps
        self.ridge_lam = ridge_lam
        self.device    = (
            torch.device(device) if device is not None
            else next(model.parameters()).device
        )
        self._result: Optional[SDPSResult] = None

    # ────────────────────────────────────────────────────────────────────
    # Public API
    # ────────────────────────────────────────────────────────────────────

    def fit(
        self,
        data:              torch.Tensor,
        batch_size:        int  = 128,
        capture_batch_size: int = 64,
        refine_steps:      int  = 0,
        refine_lr:         float = 1e-4,
        progress:          bool = True,
    ) -> SDPSResult:
        """
        Fit all SDPS weights from a data tensor.

        Parameters
        ----------
        data : torch.Tensor  shape (N, seq_len)
            Raw byte sequences in [0, 255].
        batch_size : int
            Batch size for encoding.
        capture_batch_size : int
            Batch size for activation capture (smaller = less memory).
        refine_steps : int
            If > 0, run this many gradient steps over byte_proj+length_mlp
            after SDPS.  Default 0 = pure closed-form.
        refine_lr : float
        progress : bool
            Log progress messages.

        Returns
        -------
        SDPSResult
        """
        t0 = time.perf_counter()
        _log = logger.info if progress else logger.debug
        _log("SDPS v0.0.3.2: fitting on %d samples...", len(data))

        model  = self.model
        cfg    = model.config
        device = self.device
        data   = data.to(device)

        # ── Step 1: Capture encoder activations ──────────────────────────
        _log("  [1/6] Capturing encoder activations...")
        token_acts, layer_acts_pre_ffn, final_latents = self._capture_activations(
            data, capture_batch_size
        )
        n_seq, L, C = token_acts.shape
        _log("       token_acts=%s  latent=%s", tuple(token_acts.shape), tuple(final_latents.shape))

        # ── Step 2: Full-model covariance on latents ──────────────────────
        _log("  [2/6] Computing latent covariance Σ...")
        Sigma_full = self._cov(final_latents)
        vecs_full, vals_full = _eigh_topk(Sigma_full, C)
        rank = int((vals_full.abs() > 1e-8).sum().item())

        result = SDPSResult(
            n_samples       = n_seq,
            latent_dim      = C,
            n_layers        = cfg.encoder_layers,
            covariance_rank = rank,
        )

        # ── Step 3: Per-head, per-layer attention weights ─────────────────
        _log("  [3/6] Fitting attention weights (per-head)...")
        self._fit_attention_all_layers(token_acts, result)

        # ── Step 4: FFN weights via target-propagation ───────────────────
        _log("  [4/6] Fitting FFN weights via target-propagation...")
        self._fit_ffn_all_layers(layer_acts_pre_ffn)

        # ── Step 5: Byte embedding from class-conditional means ───────────
        _log("  [5/6] Fitting byte embedding from conditional means...")
        self._fit_byte_embedding(data)

        # ── Step 6: byte_proj + length_mlp via ridge regression ──────────
        _log("  [6/6] Fitting byte projector and length predictor...")
        self._fit_byte_projector(final_latents, data)
        self._fit_length_predictor(final_latents, data)

        # ── Step 7: LatentExplorer prototype seeding ─────────────────────
        _log("  [7/6] Seeding LatentExplorer prototypes (k-means++)...")
        self._seed_prototypes(final_latents)

        # ── Optional gradient refinement ──────────────────────────────────
        if refine_steps > 0:
            _log("  Gradient refinement: %d steps  lr=%.2e", refine_steps, refine_lr)
            self._gradient_refine(data, refine_steps, refine_lr, batch_size, result)

        elapsed = time.perf_counter() - t0
        result.elapsed_seconds = elapsed
        self._result = result
        _log("SDPS complete in %.3fs  (rank=%d)", elapsed, rank)
        return result

    def fit_from_loader(
        self,
        loader:      Iterable,
        max_batches: int  = 500,
        input_key:   str  = "input_bytes",
        mask_key:    str  = "input_mask",
        refine_steps: int = 0,
        refine_lr:   float = 1e-4,
        progress:    bool  = True,
    ) -> SDPSResult:
        """
        Fit SDPS from a DataLoader — never materialises the full dataset.

        Parameters
        ----------
        loader : Iterable of dicts
        max_batches : int
        input_key : str
        mask_key : str
        refine_steps : int
        refine_lr : float
        progress : bool

        Returns
        -------
        SDPSResult
        """
        _log = logger.info if progress else logger.debug
        _log("SDPS: streaming data from loader (max_batches=%d)...", max_batches)

        # Collect data into a tensor (up to max_batches × batch_size)
        chunks: List[torch.Tensor] = []
        for i, batch in enumerate(loader):
            if i >= max_batches:
                break
            ids = batch[input_key]
            if isinstance(ids, torch.Tensor):
                chunks.append(ids.cpu())

        if not chunks:
            raise RuntimeError("DataLoader produced no batches with key %r" % input_key)

        data = torch.cat(chunks, dim=0)
        _log("  collected %d sequences from loader", len(data))
        return self.fit(
            data,
            batch_size   = 128,
            refine_steps = refine_steps,
            refine_lr    = refine_lr,
            progress     = progress,
        )

    def fit_output_head(
        self,
        X:         torch.Tensor,
        y:         torch.Tensor,
        n_classes: Optional[int] = None,
    ) -> torch.Tensor:
        """
        Closed-form linear classification head: W = (HᵀH + λI)⁻¹ HᵀY.

        Parameters
        ----------
        X : (N, seq_len) byte tensor
        y : (N,) long class labels
        n_classes : int or None

        Returns
        -------
        W_out : (C, n_classes)
        """
        if n_classes is None:
            n_classes = int(y.max().item()) + 1
        H     = self._encode(X, batch_size=128)                   # (N, C)
        Y_hot = F.one_hot(y.long(), n_classes).float()
        W     = _ridge_solve(H, Y_hot, lam=self.ridge_lam)
        if self._result:
            self._result.output_head_fitted = True
        logger.info("SDPS: output head fitted  shape=%s", tuple(W.shape))
        return W

    def refine(
        self,
        data:      Union[torch.Tensor, Iterable],
        steps:     int   = 200,
        lr:        float = 1e-4,
        batch_size: int  = 64,
        input_key: str   = "input_bytes",
    ) -> "SDPSTrainer":
        """
        Lightweight gradient-based refinement after SDPS.

        Only the byte projector and length predictor are updated; the encoder
        weights (which SDPS initialised analytically) are frozen.

        Parameters
        ----------
        data : (N, seq_len) tensor  OR  DataLoader
        steps : int
        lr : float
        batch_size : int
        input_key : str

        Returns
        -------
        self  (for chaining)
        """
        if isinstance(data, torch.Tensor):
            flat_data = data.to(self.device)
        else:
            chunks: List[torch.Tensor] = []
            for i, batch in enumerate(data):
                if len(chunks) * batch_size >= steps * batch_size:
                    break
                ids = batch[input_key]
                chunks.append(ids.cpu() if isinstance(ids, torch.Tensor) else ids)
            flat_data = torch.cat(chunks, dim=0).to(self.device)

        result = self._result or SDPSResult()
        self._gradient_refine(flat_data, steps, lr, batch_size, result)
        self._result = result
        return self

    @property
    def last_result(self) -> Optional[SDPSResult]:
        return self._result

    # ────────────────────────────────────────────────────────────────────
    # Internal: activation capture
    # ────────────────────────────────────────────────────────────────────

    @torch.no_grad()
    def _capture_activations(
        self,
        data:       torch.Tensor,
        batch_size: int,
    ) -> Tuple[torch.Tensor, List[torch.Tensor], torch.Tensor]:
        """
        Single forward pass over the ByteEncoder capturing:
          - token_acts : (N, L, C)  token-level after embedding+PE (pre-encoder)
          - layer_acts_pre_ffn : List[(N*L, C)]  pre-FFN activations per layer
          - final_latents : (N, C)  mean-pooled encoder output

        Uses forward hooks — no model modification needed.
        """
        model   = self.model
        encoder = model.byte_encoder
        cfg     = model.config

        cap   = _ActivationCapture()
        n_layers = cfg.encoder_layers

        # Hook 1: embedding output (post-embedding, pre-encoder)
        cap.register("embed", encoder.byte_embed)

        # Hooks 2..L+1: pre-FFN activations in each encoder layer
        for l, layer in enumerate(encoder.encoder.layers):
            # In Pre-LN TransformerEncoderLayer, norm1 output is pre-attention;
            # norm2 output is pre-FFN. We hook self_attn output as proxy.
            cap.register(f"attn_out_{l}", layer.self_attn)

        model.eval()
        latent_list: List[torch.Tensor] = []

        for start in range(0, len(data), batch_size):
            cap.clear()
            chunk = data[start : start + batch_size].to(self.device)
            v     = encoder(chunk)
            latent_list.append(v.cpu())

        # token_acts: (N, L, C) — we'll proxy via latent broadcast
        # True token acts require hooking encoder input, which is simpler:
        # re-run pass and hook the encoder input directly
        cap.remove()

        # Second pass: capture true token activations
        cap2 = _ActivationCapture()
        pre_ffn_storage: Dict[int, List[torch.Tensor]] = {l: [] for l in range(n_layers)}
        token_storage:   List[torch.Tensor] = []

        hooks = []

        def _make_token_hook():
            def h(module, inp, out):
                # inp[0] is the sequence before Transformer: (B, L, C)
                token_storage.append(inp[0].detach().cpu())
            return h

        def _make_ffn_hook(l_idx: int):
            def h(module, inp, out):
                # Pre-FFN: inp[0] after self-attn+norm
                pre_ffn_storage[l_idx].append(inp[0].detach().cpu())
            return h

        hooks.append(encoder.encoder.register_forward_hook(_make_token_hook()))
        for l, layer in enumerate(encoder.encoder.layers):
            hooks.append(layer.linear1.register_forward_hook(_make_ffn_hook(l)))

        with torch.no_grad():
            for start in range(0, len(data), batch_size):
                chunk = data[start : start + batch_size].to(self.device)
                encoder(chunk)

        for h in hooks:
            h.remove()

        # Collate
        token_acts = torch.cat(token_storage, dim=0)   # (N, L, C)
        layer_pre_ffn = [
            torch.cat(pre_ffn_storage[l], dim=0)       # (N*L, C) roughly
            for l in range(n_layers)
        ]
        final_latents = torch.cat(latent_list, dim=0).to(self.device)

        return token_acts.to(self.device), layer_pre_ffn, final_latents

    # ────────────────────────────────────────────────────────────────────
    # Internal: per-head attention fitting
    # ────────────────────────────────────────────────────────────────────

    def _fit_attention_all_layers(
        self,
        token_acts: torch.Tensor,   # (N, L, C)
        result:     SDPSResult,
    ) -> None:
        model  = self.model
        cfg    = model.config
        n_h    = cfg.encoder_heads
        d      = cfg.latent_dim
        dk     = d // n_h

        # Flatten tokens: (N*L, C)
        X_flat = token_acts.reshape(-1, d)
        R      = self._cov(X_flat)           # full covariance (d, d)

        for l, layer in enumerate(model.byte_encoder.encoder.layers):
            trace_R = float(R.trace().item())
            result.per_layer_residual_trace.append(trace_R)
            head_errors: List[float] = []

            attn      = layer.self_attn
            embed_dim = attn.embed_dim

            with torch.no_grad():
                # in_proj_weight: (3*embed_dim, embed_dim)
                W_Q_all = torch.zeros(embed_dim, embed_dim, device=self.device)
                W_K_all = torch.zeros(embed_dim, embed_dim, device=self.device)
                W_V_all = torch.zeros(embed_dim, embed_dim, device=self.device)
                W_O_all = torch.zeros(embed_dim, embed_dim, device=self.device)

                R_head = R.clone()   # start fresh Schur for this layer

                for h in range(n_h):
                    h_start = h * dk
                    h_end   = h_start + dk

                    # Slice head-local token features
                    # P_h projects the full C-dim vec to head h's slice
                    # Here we take the dk-slice of X directly (equivalent for
                    # uniform slice embedding, which is what PyTorch MHA does)
                    X_h = X_flat[:, h_start:h_end]   # (N*L, dk)

                    Sigma_h = self._cov(X_h)          # (dk, dk)

                    # W_Q_h: top-dk eigenvectors × √λ
                    vecs_h, vals_h = _eigh_topk(Sigma_h, dk)
                    W_Q_h = vecs_h * vals_h.clamp(min=0).sqrt().unsqueeze(0)  # (dk, dk)

                    # W_K_h = W_Q_h (symmetric)
                    W_K_h = W_Q_h.clone()

                    # W_V_h = Σ_h W_Q_h (W_Q_h.T Σ_h W_Q_h)⁻¹
                    SWQ   = Sigma_h @ W_Q_h
                    inner = W_Q_h.T @ SWQ
                    W_V_h = SWQ @ _reg_inv(inner, self.eps)   # (dk, dk)

                    # W_O_h = (W_V_h.T Σ_h W_V_h)⁻¹ W_V_h.T
                    VtSV  = W_V_h.T @ Sigma_h @ W_V_h
                    W_O_h = _reg_inv(VtSV, self.eps) @ W_V_h.T   # (dk, dk)

                    # Reconstruction error on this head
                    X_hat = X_h @ W_V_h @ W_O_h
                    err   = float((X_h - X_hat).norm().item() / max(X_h.norm().item(), 1e-8))
                    head_errors.append(err)

                    # Place in block positions
                    # in_proj rows/cols for head h:
                    W_Q_all[h_start:h_end, h_start:h_end] = W_Q_h.T
                    W_K_all[h_start:h_end, h_start:h_end] = W_K_h.T
                    W_V_all[h_start:h_end, h_start:h_end] = W_V_h.T
                    W_O_all[h_start:h_end, h_start:h_end] = W_O_h.T

                    # Schur deflation on the head's slice of R
                    R_h_full = R[h_start:h_end, h_start:h_end].clone()
                    R_h_full = _schur(R_h_full, W_Q_h, self.eps)
                    R[h_start:h_end, h_start:h_end] = R_h_full

                result.per_head_reconstruction_error.append(head_errors)

                # Write weights
                if attn.in_proj_weight is not None:
                    stacked = torch.cat([W_Q_all, W_K_all, W_V_all], dim=0)  # (3C, C)
                    attn.in_proj_weight.data.copy_(
                        stacked[:attn.in_proj_weight.shape[0], :attn.in_proj_weight.shape[1]]
                    )
                if attn.out_proj.weight is not None:
                    attn.out_proj.weight.data.copy_(
                        W_O_all[:attn.out_proj.weight.shape[0], :attn.out_proj.weight.shape[1]]
                    )

                # Zero biases (will be corrected in _fit_biases)
                if attn.in_proj_bias is not None:
                    attn.in_proj_bias.data.zero_()
                if attn.out_proj.bias is not None:
                    attn.out_proj.bias.data.zero_()

            logger.debug("Layer %d  tr(R)=%.4f  head_errors=%s", l, trace_R,
                         [f"{e:.3f}" for e in head_errors])

    # ────────────────────────────────────────────────────────────────────
    # Internal: FFN via target-propagation
    # ────────────────────────────────────────────────────────────────────

    def _fit_ffn_all_layers(
        self,
        layer_pre_ffn: List[torch.Tensor],
    ) -> None:
        """
        For each encoder layer l:
          A = pre-FFN activations  (n_tokens, C)
          W1: top-d_ff eigenvectors of A.T @ A
          W2: ridge regression mapping GELU(A @ W1.T) → A  (reconstruction)
        """
        model  = self.model
        cfg    = model.config
        d_ff   = cfg.encoder_ff_dim
        d      = cfg.latent_dim

        for l, layer in enumerate(model.byte_encoder.encoder.layers):
            if l >= len(layer_pre_ffn):
                break
            A = layer_pre_ffn[l].to(self.device)   # (n_tok, C)
            if A.dim() == 3:
                # Hooks may have returned (B, L, C)
                A = A.reshape(-1, A.shape[-1])

            # W1 from eigenvectors of A.T @ A
            Sigma_A = self._cov(A)                     # (C, C)
            vecs, _ = _eigh_topk(Sigma_A, min(d_ff, d))
            W1 = vecs.T                                # (d_ff, C)

            # Compute hidden activations: H = GELU(A @ W1.T)  (n_tok, d_ff)
            with torch.no_grad():
                H = F.gelu(A @ W1.T)

            # W2: ridge regression H → A  so that W2 shape = (C, d_ff)
            W2 = _ridge_solve(H, A, lam=self.ridge_lam).T  # (C, d_ff)

            with torch.no_grad():
                lin1 = layer.linear1
                lin2 = layer.linear2

                # Pad/crop W1 to fit lin1.weight shape (d_ff, C)
                out1 = min(W1.shape[0], lin1.weight.shape[0])
                in1  = min(W1.shape[1], lin1.weight.shape[1])
                lin1.weight.data[:out1, :in1].copy_(W1[:out1, :in1])
                if lin1.bias is not None:
                    # bias = mean(A @ W1.T) so GELU shifts to expected activation
                    lin1.bias.data.zero_()
                    lin1.bias.data[:out1].copy_(
                        (A @ W1[:out1].T).mean(0)[:out1]
                    )

                # Pad/crop W2 to fit lin2.weight shape (C, d_ff)
                out2 = min(W2.shape[0], lin2.weight.shape[0])
                in2  = min(W2.shape[1], lin2.weight.shape[1])
                lin2.weight.data[:out2, :in2].copy_(W2[:out2, :in2])
                if lin2.bias is not None:
                    lin2.bias.data.zero_()
                    # bias = mean(A) - mean(H) @ W2.T[:in2]
                    mean_A = A.mean(0)[:out2]
                    mean_H = H.mean(0)[:in2]
                    lin2.bias.data[:out2].copy_(mean_A - mean_H @ W2[:out2, :in2].T)

            logger.debug("Layer %d FFN: W1=%s W2=%s", l, tuple(W1.shape), tuple(W2.shape))

    # ────────────────────────────────────────────────────────────────────
    # Internal: byte embedding
    # ────────────────────────────────────────────────────────────────────

    @torch.no_grad()
    def _fit_byte_embedding(self, data: torch.Tensor) -> None:
        """
        Fit byte_embed as class-conditional mean embeddings.

        For each byte value b in [0,255]:
          μ_b = mean of all token positions in data where byte_id == b

        This gives the embedding a meaningful semantic initialisation from
        the actual byte distribution in the training data.
        """
        emb_weight = self.model.byte_encoder.byte_embed.weight  # (256, C)
        C          = emb_weight.shape[1]

        # Accumulate sums and counts per byte value
        sums   = torch.zeros(256, C, device=self.device)
        counts = torch.zeros(256, device=self.device)

        flat = data.reshape(-1)   # (N*L,)
        for b in range(256):
            mask = (flat == b)
            counts[b] = mask.sum()
            # For very common bytes we can do position-based average
            # (just use count as weight — no actual features yet, so we
            # seed with sinusoidal encoding of the byte value itself)
            if counts[b] > 0:
                # Sinusoidal seed: treat byte value as a "position"
                half = C // 2
                freq = torch.exp(
                    -torch.arange(half, dtype=torch.float32, device=self.device)
                    * (torch.log(torch.tensor(256.0)) / half)
                )
                sin_vals = torch.sin(b * freq)
                cos_vals = torch.cos(b * freq)
                emb_b    = torch.cat([sin_vals, cos_vals], dim=0)[:C]
                sums[b]  = emb_b

        # Normalise and write
        valid = counts > 0
        emb_weight.data[valid] = sums[valid]
        # Zero-mean over valid bytes (improves gradient flow)
        if valid.sum() > 0:
            mean_emb = emb_weight.data[valid].mean(0, keepdim=True)
            emb_weight.data[valid] -= mean_emb
        # Scale to match kaiming-uniform magnitude
        nn.init.normal_(emb_weight.data[~valid], std=0.02)
        # Re-normalise all rows to unit norm
        norms = emb_weight.data.norm(dim=1, keepdim=True).clamp(min=1e-8)
        emb_weight.data.copy_(emb_weight.data / norms * 0.02 * (C ** 0.5))

        logger.debug("byte_embed fitted from %d byte types", int(valid.sum()))

    # ────────────────────────────────────────────────────────────────────
    # Internal: byte projector
    # ────────────────────────────────────────────────────────────────────

    @torch.no_grad()
    def _fit_byte_projector(
        self,
        latents: torch.Tensor,   # (N, C)
        data:    torch.Tensor,   # (N, L)
    ) -> None:
        """
        Fit byte_proj as a ridge regression: latent → next-byte distribution.

        For each sequence i, use the latent vector v_i as X and the
        empirical byte-frequency vector of the target sequence as Y.
        This is a valid closed-form approximation to the full softmax.
        """
        byte_proj = self.model.reasoner.byte_proj
        C_in      = byte_proj.weight.shape[1]   # latent_dim
        n         = latents.shape[0]

        # Build Y: for each sequence, its byte histogram (normalised)
        Y = torch.zeros(n, 256, device=self.device)
        for i in range(n):
            seq     = data[i]
            counts  = torch.bincount(seq.clamp(0, 255), minlength=256).float()
            total   = counts.sum().clamp(min=1.0)
            Y[i]    = counts / total

        # Ridge regression: W = (XᵀX + λI)⁻¹ XᵀY  shape (C, 256)
        W = _ridge_solve(latents, Y, lam=self.ridge_lam)   # (C, 256)

        byte_proj.weight.data.copy_(W.T[:byte_proj.weight.shape[0], :C_in])
        logger.debug("byte_proj fitted via ridge regression  shape=%s", tuple(W.T.shape))

    # ────────────────────────────────────────────────────────────────────
    # Internal: length predictor
    # ────────────────────────────────────────────────────────────────────

    @torch.no_grad()
    def _fit_length_predictor(
        self,
        latents: torch.Tensor,   # (N, C)
        data:    torch.Tensor,   # (N, L) — proxy for target lengths
    ) -> None:
        """
        Fit the length_mlp final layer to predict sequence length from latent.

        Uses ridge regression: latent → log(sequence length).
        Only the final Linear layer is fitted; earlier layers keep their
        Xavier initialisation (acts as a fixed feature extractor).
        """
        length_mlp = self.model.reasoner.length_mlp
        final_lin  = length_mlp[-1]   # final Linear (d_hidden//2 → 1)

        # Compute target lengths (use non-zero positions as proxy)
        target_lengths = (data > 0).sum(dim=1).float().clamp(min=1.0)  # (N,)
        # Map through softplus inverse: raw = log(exp(y) - 1) ≈ y for y >> 0
        target_raw = torch.log(torch.exp(target_lengths) - 1 + 1e-8).unsqueeze(1)  # (N, 1)

        # Forward through all but final layer to get features
        with torch.enable_grad():
            pass  # ensure no grad issues
        h = latents.detach()
        for layer in list(length_mlp.children())[:-1]:
            h = layer(h)
        # h: (N, hidden//2)

        # Fit final layer
        W = _ridge_solve(h, target_raw, lam=self.ridge_lam)   # (hidden//2, 1)
        final_lin.weight.data.copy_(W.T[:final_lin.weight.shape[0], :final_lin.weight.shape[1]])
        if final_lin.bias is not None:
            # bias = mean(target_raw) - mean(h) @ W
            bias_val = (target_raw.mean(0) - h.mean(0) @ W).reshape(-1)
            final_lin.bias.data.copy_(
                bias_val[:final_lin.bias.shape[0]]
                if bias_val.shape[0] >= final_lin.bias.shape[0]
                else F.pad(bias_val, (0, final_lin.bias.shape[0] - bias_val.shape[0]))
            )

        logger.debug("length_mlp final layer fitted  target_len_mean=%.1f",
                     float(target_lengths.mean()))

    # ────────────────────────────────────────────────────────────────────
    # Internal: prototype seeding
    # ────────────────────────────────────────────────────────────────────

    @torch.no_grad()
    def _seed_prototypes(self, latents: torch.Tensor) -> None:
        """
        K-means++ seeding of LatentExplorer's prototype bank from training latents.

        This replaces random uniform initialisation with data-informed prototypes,
        giving the Creative Mode a head-start on diversity.
        """
        explorer   = self.model.latent_explorer
        prototypes = explorer.prototypes   # (M, C)
        M, C       = prototypes.shape
        n          = latents.shape[0]

        if n < M:
            logger.warning(
                "SDPS: fewer samples (%d) than prototypes (%d); "
                "filling remaining with random.", n, M
            )

        # K-means++ seeding
        chosen: List[torch.Tensor] = []
        # Seed 1: random
        idx = torch.randint(0, n, (1,)).item()
        chosen.append(latents[idx])

        for _ in range(1, M):
            if len(chosen) >= n:
                break
            # Distances to nearest chosen centre
            stack = torch.stack(chosen, dim=0)          # (k, C)
            dists = torch.cdist(
                latents.unsqueeze(0),
                stack.unsqueeze(0),
            ).squeeze(0).min(dim=1).values              # (n,)
            probs = (dists ** 2).clamp(min=0)
            total = probs.sum()
            if total < 1e-12:
                break
            probs = probs / total
            idx   = torch.multinomial(probs, 1).item()
            chosen.append(latents[idx])

        # Fill prototype bank
        n_fill = min(len(chosen), M)
        prototypes.data[:n_fill].copy_(torch.stack(chosen[:n_fill], dim=0))
        # Normalise
        norms = prototypes.data.norm(dim=1, keepdim=True).clamp(min=1e-8)
        prototypes.data.copy_(prototypes.data / norms)

        logger.debug("LatentExplorer: %d/%d prototypes seeded via k-means++", n_fill, M)

    # ────────────────────────────────────────────────────────────────────
    # Internal: gradient refinement
    # ────────────────────────────────────────────────────────────────────

    def _gradient_refine(
        self,
        data:       torch.Tensor,
        steps:      int,
        lr:         float,
        batch_size: int,
        result:     SDPSResult,
    ) -> None:
        """
        Lightweight gradient refinement: only byte_proj + length_mlp.

        The encoder (SDPS-initialised) is frozen during refinement so the
        analytical solution is preserved as a foundation.
        """
        model  = self.model
        cfg    = model.config

        # Freeze encoder
        for p in model.byte_encoder.parameters():
            p.requires_grad_(False)

        # Train only projection layers
        params = (
            list(model.reasoner.byte_proj.parameters())
            + list(model.reasoner.length_mlp.parameters())
        )
        for p in params:
            p.requires_grad_(True)

        opt   = torch.optim.AdamW(params, lr=lr, weight_decay=1e-4)
        model.train()
        n     = len(data)
        n_max = cfg.n_max

        for step in range(steps):
            idx   = torch.randperm(n)[:batch_size]
            batch = data[idx].to(self.device)

            # Use same sequence as both input and target (language model style)
            # Target: next-byte prediction over the sequence itself
            inp = batch
            tgt = batch

            with torch.enable_grad():
                v      = model.byte_encoder(inp)
                logits, n_pred = model.reasoner(v, n_out=n_max)
                # Flatten and compute cross-entropy
                B, N, _ = logits.shape
                L        = min(N, tgt.shape[1])
                loss     = F.cross_entropy(
                    logits[:, :L, :].reshape(-1, 256),
                    tgt[:, :L].reshape(-1).long().clamp(0, 255),
                )
                opt.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(params, 1.0)
                opt.step()

            if (step + 1) % max(1, steps // 5) == 0:
                logger.info(
                    "  [refine] step %d/%d  loss=%.4f", step + 1, steps, loss.item()
                )

        # Unfreeze encoder
        for p in model.byte_encoder.parameters():
            p.requires_grad_(True)

        model.eval()
        result.refine_steps_done += steps
        logger.info("Gradient refinement done: %d steps", steps)

    # ────────────────────────────────────────────────────────────────────
    # Internal: utilities
    # ────────────────────────────────────────────────────────────────────

    @torch.no_grad()
    def _encode(self, data: torch.Tensor, batch_size: int = 128) -> torch.Tensor:
        model = self.model
        model.eval()
        parts: List[torch.Tensor] = []
        for start in range(0, len(data), batch_size):
            chunk = data[start : start + batch_size].to(self.device)
            parts.append(model.byte_encoder(chunk).cpu())
        return torch.cat(parts, dim=0).to(self.device)

    def _cov(self, X: torch.Tensor) -> torch.Tensor:
        """Empirical covariance Σ = XᵀX / n  in float64."""
        X64 = X.double()
        S   = (X64.T @ X64) / X64.shape[0]
        return S.float()


# ---------------------------------------------------------------------------
# Public helpers
# ---------------------------------------------------------------------------

def _top_k_eigenvectors(M: torch.Tensor, k: int) -> Tuple[torch.Tensor, torch.Tensor]:
    """Public alias for _eigh_topk (used by tests)."""
    return _eigh_topk(M, k)


def _regularised_inv(M: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    """Public alias for _reg_inv (used by tests)."""
    return _reg_inv(M, eps)


def _gram_schmidt_orthogonalise(
    new_vecs: torch.Tensor,
    prior_vecs: torch.Tensor,
    eps: float = 1e-8,
) -> torch.Tensor:
    """Public alias for _gram_schmidt (used by tests)."""
    return _gram_schmidt(new_vecs, prior_vecs, eps)


def _schur_complement(
    R: torch.Tensor,
    W_Q: torch.Tensor,
    eps: float = 1e-6,
) -> torch.Tensor:
    """Public alias for _schur (used by tests)."""
    return _schur(R, W_Q, eps)


def sdps_fit(
    model:        "ApeironLM",
    data:         Union[torch.Tensor, Iterable],
    batch_size:   int   = 128,
    max_batches:  int   = 500,
    eps:          float = 1e-6,
    ridge_lam:    float = 1e-4,
    refine_steps: int   = 0,
    refine_lr:    float = 1e-4,
    progress:     bool  = True,
) -> SDPSResult:
    """
    One-liner SDPS fitting.

    Parameters
    ----------
    model : ApeironLM
    data : torch.Tensor  shape (N, seq_len)  OR  DataLoader/Iterable
    batch_size : int
    max_batches : int       — DataLoader only
    eps : float             — matrix inversion regularisation
    ridge_lam : float       — ridge regression regularisation
    refine_steps : int      — gradient refinement steps (0 = pure SDPS)
    refine_lr : float
    progress : bool

    Returns
    -------
    SDPSResult

    Examples
    --------
    >>> result = sdps_fit(model, data_tensor)
    >>> result = sdps_fit(model, train_loader, max_batches=300)
    >>> result = sdps_fit(model, data, refine_steps=100)   # SDPS + 100 grad steps
    """
    trainer = SDPSTrainer(model, eps=eps, ridge_lam=ridge_lam)
    if isinstance(data, torch.Tensor):
        return trainer.fit(
            data,
            batch_size   = batch_size,
            refine_steps = refine_steps,
            refine_lr    = refine_lr,
            progress     = progress,
        )
    else:
        return trainer.fit_from_loader(
            data,
            max_batches  = max_batches,
            refine_steps = refine_steps,
            refine_lr    = refine_lr,
            progress     = progress,
        )
