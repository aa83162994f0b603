# Copyright 2026 Ömür Bera Işık  —  Apache-2.0
"""
Fourier Global Context  (v0.0.3.2)
====================================
Spectral convolution giving every token O(N·log(N)·C) global context.

v0.0.3.2 improvements over v0.0.3
-----------------------------------
1. FourierSpectralConv1D
   - Channel-mixing mode (mix_channels=True): learns a full C×C complex
     matrix per frequency mode instead of per-channel scalar weights.
     This lets different channels exchange information in the frequency
     domain — strictly more expressive than the scalar version.
   - Proper scale initialisation: weights scaled by 1/√(C·n_modes) so
     the output variance is ~1 regardless of model width.
   - gate: a learned sigmoid gate on the Fourier output (like GRU-style
     gating), preventing the spectral branch from dominating the residual.

2. GlobalContextBlock
   - SwiGLU-style gating on the blended output (replaces raw sigmoid α).
   - Gradient checkpointing support flag (use_checkpoint).

3. AdaptiveFourierFilter  (new)
   - Input-conditioned frequency filter: a small MLP predicts per-sample
     frequency weights from the mean token activation.
   - Cost: O(C²) MLP + O(N·log(N)·C) FFT — negligible overhead.
   - Allows the model to dynamically focus on low/high frequencies depending
     on the input (e.g., code vs. prose vs. image bytes).

4. MultiScaleFourierBlock  (new)
   - Runs Fourier at 3 different n_modes values (coarse/mid/fine) in parallel.
   - Concatenates and projects back to C.
   - Captures multi-resolution frequency content like a wavelet decomposition.
"""

from __future__ import annotations

import math
from typing import Optional, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.checkpoint as checkpoint_util


# ---------------------------------------------------------------------------
# Weight initialisation
# ---------------------------------------------------------------------------

def _fourier_weight_init(weight: torch.Tensor, n_modes: int, C: int) -> None:
    """Scale weights so output variance ≈ 1 regardless of n_modes and C."""
    std = 1.0 / math.sqrt(n_modes * max(C, 1))
    nn.init.normal_(weight, mean=0.0, std=std)


# ---------------------------------------------------------------------------
# FourierSpectralConv1D  (v0.0.3.2)
# ---------------------------------------------------------------------------

class FourierSpectralConv1D(nn.Module):
    """
    Fourier-domain spectral convolution along the sequence axis.

    Two modes
    ---------
    mix_channels=False (default, v0.0.3 compat):
        Per-channel complex scalar weight:  weight ∈ ℝ^{n_modes × C × 2}
        Cost: O(N·log(N)·C)

    mix_channels=True (new in v0.0.3.2):
        Full complex channel-mixing matrix per mode: weight ∈ ℝ^{n_modes × C × C × 2}
        Cost: O(N·log(N)·C²/n_modes) — use when C is small (≤128).
        More expressive: channels can exchange information in freq domain.

    Parameters
    ----------
    channels : int
    n_modes : int
        Number of low-frequency modes to keep (higher = more global info).
    mix_channels : bool
        If True, use full C×C complex matrix per mode.
    gate : bool
        If True, apply a learned sigmoid gate on the spectral output.
        Prevents the Fourier branch from overpowering the residual.
    bias : bool
    dropout : float
        Applied to the spectral output before residual add.
    """

    def __init__(
        self,
        channels:      int,
        n_modes:       int  = 64,
        mix_channels:  bool = False,
        gate:          bool = True,
        bias:          bool = True,
        dropout:       float = 0.0,
    ) -> None:
        super().__init__()
        self.C            = channels
        self.n_modes      = n_modes
        self.mix_channels = mix_channels

        if mix_channels:
            # (n_modes, C_out, C_in, 2) — complex C×C matrix per mode
            self.weight = nn.Parameter(torch.zeros(n_modes, channels, channels, 2))
            _fourier_weight_init(self.weight, n_modes, channels * channels)
        else:
            # (n_modes, C, 2) — per-channel scalar
            self.weight = nn.Parameter(torch.zeros(n_modes, channels, 2))
            _fourier_weight_init(self.weight, n_modes, channels)

        self.bias_param = nn.Parameter(torch.zeros(channels)) if bias else None

        # Learned gate: σ(Wg · h) ∈ (0,1)^C applied to spectral output
        self.gate_proj: Optional[nn.Linear]
        if gate:
            self.gate_proj = nn.Linear(channels, channels, bias=True)
            nn.init.zeros_(self.gate_proj.weight)
            nn.init.ones_(self.gate_proj.bias)   # start fully open
        else:
            self.gate_proj = None

        self.drop = nn.Dropout(dropout) if dropout > 0 else None
        self.norm = nn.LayerNorm(channels)

    # ── Forward ───────────────────────────────────────────────────────────

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        """
        Parameters
        ----------
        h : (B, N, C)

        Returns
        -------
        (B, N, C)
        """
        B, N, C = h.shape
        n_modes = min(self.n_modes, N // 2 + 1)

        # FFT: (B, C, N) → (B, C, F)
        h_t   = h.transpose(1, 2)                     # (B, C, N)
        h_fft = torch.fft.rfft(h_t, n=N, dim=-1)      # (B, C, F) complex
        h_fft = h_fft.transpose(1, 2)                 # (B, F, C) complex

        # Spectral multiply
        if self.mix_channels:
            out_fft = self._mix_channel_mul(h_fft, n_modes, B, N, C)
        else:
            out_fft = self._scalar_mul(h_fft, n_modes, B, N, C)

        # iFFT: (B, F, C) → (B, C, N) → (B, N, C)
        out = torch.fft.irfft(
            out_fft.transpose(1, 2),   # (B, C, F)
            n=N, dim=-1,
        ).transpose(1, 2)              # (B, N, C)

        if self.bias_param is not None:
            out = out + self.bias_param

        if self.drop is not None:
            out = self.drop(out)

        # Gating: suppress or amplify spectral output per-channel per-position
        if self.gate_proj is not None:
            gate_val = torch.sigmoid(self.gate_proj(h))  # (B, N, C)
            out      = out * gate_val

        return self.norm(h + out)

    def _scalar_mul(
        self,
        h_fft:  torch.Tensor,   # (B, F, C) complex
        n_modes: int,
        B: int, N: int, C: int,
    ) -> torch.Tensor:
        """Per-channel scalar multiply (v0.0.3 compat mode)."""
        F_dim  = N // 2 + 1
        out    = torch.zeros(B, F_dim, C, dtype=torch.cfloat, device=h_fft.device)

        h_r = h_fft.real[:, :n_modes, :]   # (B, m, C)
        h_i = h_fft.imag[:, :n_modes, :]
        w_r = self.weight[:n_modes, :, 0]   # (m, C)
        w_i = self.weight[:n_modes, :, 1]

        r = h_r * w_r - h_i * w_i
        i = h_r * w_i + h_i * w_r
        out[:, :n_modes, :] = torch.view_as_complex(
            torch.stack([r, i], dim=-1).contiguous()
        )
        return out

    def _mix_channel_mul(
        self,
        h_fft:   torch.Tensor,   # (B, F, C) complex
        n_modes: int,
        B: int, N: int, C: int,
    ) -> torch.Tensor:
        """Full C×C complex matrix multiply per mode."""
        F_dim  = N // 2 + 1
        out    = torch.zeros(B, F_dim, C, dtype=torch.cfloat, device=h_fft.device)

        # weight: (n_modes, C_out, C_in, 2)
        h_r = h_fft.real[:, :n_modes, :]              # (B, m, C)
        h_i = h_fft.imag[:, :n_modes, :]
        w_r = self.weight[:n_modes, :, :, 0]           # (m, C_out, C_in)
        w_i = self.weight[:n_modes, :, :, 1]

        # (B, m, C_in) × (m, C_out, C_in).T → (B, m, C_out)
        # using einsum for clarity; equivalent to batched matmul
        r = (torch.einsum("bmc,moc->bmo", h_r, w_r)
             - torch.einsum("bmc,moc->bmo", h_i, w_i))
        i = (torch.einsum("bmc,moc->bmo", h_r, w_i)
             + torch.einsum("bmc,moc->bmo", h_i, w_r))

        out[:, :n_modes, :] = torch.view_as_complex(
            torch.stack([r, i], dim=-1).contiguous()
        )
        return out

    def extra_repr(self) -> str:
        return (
            f"channels={self.C}, n_modes={self.n_modes}, "
            f"mix_channels={self.mix_channels}, "
            f"gate={self.gate_proj is not None}"
        )


# ---------------------------------------------------------------------------
# AdaptiveFourierFilter  (new in v0.0.3.2)
# ---------------------------------------------------------------------------

class AdaptiveFourierFilter(nn.Module):
    """
    Input-conditioned frequency filter.

    A small bottleneck MLP predicts per-sample frequency weights from the
    mean-pooled token activation.  These weights modulate the n_modes spectral
    weights of a FourierSpectralConv1D, letting the model dynamically
    focus on different frequency bands per input.

    Cost: O(C²) MLP forward + O(N·log(N)·C) FFT — MLP cost is negligible.

    Parameters
    ----------
    channels : int
    n_modes : int
    bottleneck : int
        Hidden dim of the weight-prediction MLP.  Default: n_modes // 2.
    gate : bool
    dropout : float
    """

    def __init__(
        self,
        channels:   int,
        n_modes:    int  = 64,
        bottleneck: Optional[int] = None,
        gate:       bool = True,
        dropout:    float = 0.0,
    ) -> None:
        super().__init__()
        self.C       = channels
        self.n_modes = n_modes
        bot          = bottleneck or max(n_modes // 2, 4)

        # Base spectral conv (scalar mode, mix_channels=False)
        self.spectral = FourierSpectralConv1D(
            channels, n_modes=n_modes, mix_channels=False, gate=gate, dropout=dropout
        )

        # MLP: mean-pool(h) → (n_modes, C, 2) modulation
        self.freq_mlp = nn.Sequential(
            nn.Linear(channels, bot),
            nn.SiLU(),
            nn.Linear(bot, n_modes * 2),  # real+imag scaling factors (not full weight)
        )
        nn.init.zeros_(self.freq_mlp[-1].weight)
        nn.init.zeros_(self.freq_mlp[-1].bias)

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        """
        Parameters
        ----------
        h : (B, N, C)

        Returns
        -------
        (B, N, C)
        """
        # Predict per-sample frequency modulation from mean token act
        ctx         = h.mean(dim=1)                        # (B, C)
        freq_scale  = self.freq_mlp(ctx)                   # (B, n_modes*2)
        B           = h.shape[0]
        n_m         = self.n_modes
        freq_r      = freq_scale[:, :n_m].unsqueeze(2)     # (B, n_m, 1)
        freq_i      = freq_scale[:, n_m:].unsqueeze(2)     # (B, n_m, 1)

        # Temporarily scale spectral weights by the adaptive factors
        # We do this without modifying the parameter by forward-hooking:
        # instead, run a custom forward that applies the scale.
        out = self._adaptive_forward(h, freq_r, freq_i)
        return out

    def _adaptive_forward(
        self,
        h:      torch.Tensor,   # (B, N, C)
        freq_r: torch.Tensor,   # (B, n_m, 1)
        freq_i: torch.Tensor,   # (B, n_m, 1)
    ) -> torch.Tensor:
        B, N, C = h.shape
        n_modes = min(self.n_modes, N // 2 + 1)

        h_t   = h.transpose(1, 2)
        h_fft = torch.fft.rfft(h_t, n=N, dim=-1).transpose(1, 2)   # (B, F, C)
        F_dim = N // 2 + 1

        out = torch.zeros(B, F_dim, C, dtype=torch.cfloat, device=h.device)

        h_r = h_fft.real[:, :n_modes, :]   # (B, m, C)
        h_i = h_fft.imag[:, :n_modes, :]

        # Base weights
        w_r = self.spectral.weight[:n_modes, :, 0]   # (m, C)
        w_i = self.spectral.weight[:n_modes, :, 1]

        # Adaptive scale: (B, m, 1) broadcast over C
        fr  = freq_r[:, :n_modes, :]   # (B, m, 1)
        fi  = freq_i[:, :n_modes, :]

        # Element-wise adaptive modulation of the complex weights
        wr_eff = w_r.unsqueeze(0) * (1.0 + fr)   # (B, m, C)
        wi_eff = w_i.unsqueeze(0) * (1.0 + fi)

        r = h_r * wr_eff - h_i * wi_eff
        i = h_r * wi_eff + h_i * wr_eff

        out[:, :n_modes, :] = torch.view_as_complex(
            torch.stack([r, i], dim=-1).contiguous()
        )

        result = torch.fft.irfft(
            out.transpose(1, 2), n=N, dim=-1
        ).transpose(1, 2)   # (B, N, C)

        if self.spectral.bias_param is not None:
            result = result + self.spectral.bias_param
        if self.spectral.gate_proj is not None:
            result = result * torch.sigmoid(self.spectral.gate_proj(h))
        if self.spectral.drop is not None:
            result = self.spectral.drop(result)

        return self.spectral.norm(h + result)

    def extra_repr(self) -> str:
        return f"channels={self.C}, n_modes={self.n_modes}, adaptive=True"


# ---------------------------------------------------------------------------
# MultiScaleFourierBlock  (new in v0.0.3.2)
# ---------------------------------------------------------------------------

class MultiScaleFourierBlock(nn.Module):
    """
    Multi-resolution Fourier block.

    Runs three FourierSpectralConv1D in parallel at different mode counts:
      - Coarse:  n_modes // 4   (very low freq — long-range global structure)
      - Mid:     n_modes         (standard)
      - Fine:    min(n_modes*4, N//2+1)  (high freq — local details)

    Outputs are concatenated (3C) then projected back to C via a linear layer.

    Cost: O(3·N·log(N)·C) + O(C²) — about 3× Fourier + one linear.

    Parameters
    ----------
    channels : int
    n_modes : int
        Base number of modes.  Coarse = n_modes//4, Fine = n_modes*4.
    gate : bool
    dropout : float
    use_checkpoint : bool
        Enable activation checkpointing to reduce peak memory.
    """

    def __init__(
        self,
        channels:       int,
        n_modes:        int   = 32,
        gate:           bool  = True,
        dropout:        float = 0.0,
        use_checkpoint: bool  = False,
    ) -> None:
        super().__init__()
        self.C              = channels
        self.use_checkpoint = use_checkpoint

        m_coarse = max(n_modes // 4, 1)
        m_mid    = n_modes
        m_fine   = n_modes * 4   # clipped per-forward by N//2+1

        self.coarse = FourierSpectralConv1D(channels, n_modes=m_coarse, gate=gate)
        self.mid    = FourierSpectralConv1D(channels, n_modes=m_mid,    gate=gate)
        self.fine   = FourierSpectralConv1D(channels, n_modes=m_fine,   gate=gate, dropout=dropout)

        # Project 3C → C
        self.proj = nn.Linear(channels * 3, channels, bias=False)
        nn.init.xavier_uniform_(self.proj.weight)

        self.norm = nn.LayerNorm(channels)

    def _forward_inner(self, h: torch.Tensor) -> torch.Tensor:
        out_c = self.coarse(h)   # (B, N, C) — each includes residual+norm
        out_m = self.mid(h)
        out_f = self.fine(h)
        # Remove residual before concat (avoid triple-counting)
        concat = torch.cat([out_c - h, out_m - h, out_f - h], dim=-1)   # (B, N, 3C)
        return self.norm(h + self.proj(concat))

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        """
        Parameters
        ----------
        h : (B, N, C)

        Returns
        -------
        (B, N, C)
        """
        if self.use_checkpoint and h.requires_grad:
            return checkpoint_util.checkpoint(self._forward_inner, h, use_reentrant=False)
        return self._forward_inner(h)

    def extra_repr(self) -> str:
        return (
            f"channels={self.C}, "
            f"coarse={self.coarse.n_modes}, mid={self.mid.n_modes}, "
            f"fine={self.fine.n_modes}, checkpoint={self.use_checkpoint}"
        )


# ---------------------------------------------------------------------------
# GlobalContextBlock  (v0.0.3.2 — improved gating)
# ---------------------------------------------------------------------------

class GlobalContextBlock(nn.Module):
    """
    Parallel global+local context block  (v0.0.3.2).

    Combines:
    1. FourierSpectralConv1D  — global context, O(N·log(N)·C)
    2. CausalDWConv1D         — local context,  O(N·k·C)

    The two branches use SwiGLU-style learned gating (replaces raw sigmoid α
    from v0.0.3 which was less expressive).

    Parameters
    ----------
    channels : int
    conv_kernel : int
        Local DW-conv kernel.  0 = disable local branch.
    n_modes : int
    fourier_mode : str
        "replace"  — Fourier only
        "parallel" — Fourier + DWConv
        "adaptive" — AdaptiveFourierFilter (input-conditioned)
        "multiscale" — MultiScaleFourierBlock (3-resolution)
    mix_channels : bool
        Pass to FourierSpectralConv1D.
    gate : bool
    dropout : float
    use_checkpoint : bool
    """

    def __init__(
        self,
        channels:       int,
        conv_kernel:    int   = 7,
        n_modes:        int   = 64,
        fourier_mode:   str   = "parallel",
        mix_channels:   bool  = False,
        gate:           bool  = True,
        dropout:        float = 0.0,
        use_checkpoint: bool  = False,
    ) -> None:
        super().__init__()
        valid = {"replace", "parallel", "adaptive", "multiscale"}
        assert fourier_mode in valid, \
            f"fourier_mode must be one of {valid}, got {fourier_mode!r}"

        self.fourier_mode   = fourier_mode
        self.C              = channels
        self.use_checkpoint = use_checkpoint

        # ── Global branch ─────────────────────────────────────────────────
        if fourier_mode == "adaptive":
            self.global_branch: nn.Module = AdaptiveFourierFilter(
                channels, n_modes=n_modes, gate=gate, dropout=dropout
            )
        elif fourier_mode == "multiscale":
            self.global_branch = MultiScaleFourierBlock(
                channels, n_modes=max(n_modes // 4, 4),
                gate=gate, dropout=dropout, use_checkpoint=use_checkpoint,
            )
        else:
            self.global_branch = FourierSpectralConv1D(
                channels, n_modes=n_modes,
                mix_channels=mix_channels, gate=gate, dropout=dropout,
            )

        # ── Local branch (parallel mode only) ────────────────────────────
        self.local_branch: Optional[nn.Module] = None
        if fourier_mode == "parallel" and conv_kernel > 0:
            from apeiron_lm.nn.unified_reasoner import CausalDWConv1D
            self.local_branch = CausalDWConv1D(channels, kernel_size=conv_kernel)

        # ── SwiGLU gating between branches ───────────────────────────────
        # g = σ(W_g · h) ∈ ℝ^C   — per-channel learned gate (not scalar)
        self.has_local = self.local_branch is not None
        if self.has_local:
            # Gate decides how much local vs. global at each position
            self.gate_global = nn.Linear(channels, channels, bias=True)
            self.gate_local  = nn.Linear(channels, channels, bias=True)
            nn.init.constant_(self.gate_global.weight, 0.0)
            nn.init.constant_(self.gate_global.bias,   0.5)
            nn.init.constant_(self.gate_local.weight,  0.0)
            nn.init.constant_(self.gate_local.bias,    0.5)
        else:
            self.gate_global = None  # type: ignore[assignment]
            self.gate_local  = None  # type: ignore[assignment]

        self.norm = nn.LayerNorm(channels)

    def _inner(self, h: torch.Tensor) -> torch.Tensor:
        out_g = self.global_branch(h)   # (B, N, C) — includes residual+norm

        if self.has_local and self.local_branch is not None:
            out_l = self.local_branch(h)   # (B, N, C) — includes residual+norm
            # SwiGLU-style: each branch has its own learned gate
            g_g   = torch.sigmoid(self.gate_global(h))   # (B, N, C)
            g_l   = torch.sigmoid(self.gate_local(h))    # (B, N, C)
            delta_g = out_g - h
            delta_l = out_l - h
            blended = h + g_g * delta_g + g_l * delta_l
            return self.norm(blended)

        return out_g   # norm already applied inside global_branch

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        """
        Parameters
        ----------
        h : (B, N, C)

        Returns
        -------
        (B, N, C)
        """
        if self.use_checkpoint and h.requires_grad:
            return checkpoint_util.checkpoint(self._inner, h, use_reentrant=False)
        return self._inner(h)

    def extra_repr(self) -> str:
        return (
            f"channels={self.C}, "
            f"fourier_mode={self.fourier_mode!r}, "
            f"local={self.has_local}, "
            f"checkpoint={self.use_checkpoint}"
        )
