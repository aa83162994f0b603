"""
Torch motion-correction model.

A device-agnostic (CPU / CUDA), batched reimplementation of the rigid and
piecewise-rigid NoRMCorre pipeline, exposed through the same scikit-learn-style
`fit` / `transform` / `fit_transform` API as before. The heavy lifting lives in
the batched `pycorre.core.*_torch` kernels; this class orchestrates them,
handles devices/dtypes, and chunks large stacks to bound memory.

Note on MPS: torch's Metal backend does not support complex FFTs, which the
phase-correlation core requires, so shift *detection* runs on CUDA or CPU.
"""
from __future__ import annotations

import logging

import numpy as np
import torch

from pycorre.core.numerics_torch import register_translation_batch
from pycorre.core.pw_rigid_torch import register_pwrigid_batch
from pycorre.core.transform_torch import apply_shifts_pwrigid, apply_shifts_rigid

logger = logging.getLogger(__name__)


def _resolve_device(device):
    if device == "auto" or device is None:
        if torch.cuda.is_available():
            return torch.device("cuda")
        return torch.device("cpu")
    return torch.device(device)


def _chunks(n, size):
    size = n if not size else size
    for start in range(0, n, size):
        yield start, min(start + size, n)


class MotionCorrection:
    def __init__(
        self,
        # Shared rigid / non-rigid parameters.
        max_shifts=(6, 6),
        upsample_factor_fft=10,
        # Piecewise-rigid parameters.
        pw_rigid=False,
        overlaps=(32, 32),
        strides=(96, 96),
        max_deviation_rigid=3,
        # Template settings.
        initialization_method="first_n",
        n_init_frames=400,
        frame_idx=None,
        reduction="mean",
        # Engine settings.
        border_nan=True,
        interpolation="bicubic",
        device="auto",
        dtype=torch.float32,
        batch_size=256,
    ):
        """
        Args:
            max_shifts: max allowed rigid shift (row, col), in pixels.
            upsample_factor_fft: subpixel resolution (1 / factor px).
            pw_rigid: whether to run piecewise-rigid correction.
            overlaps, strides: patch geometry (patch size = overlap + stride).
            max_deviation_rigid: max patch deviation from the rigid shift.
            initialization_method: 'first_n' | 'random' | 'even' | 'single'.
            n_init_frames: frames used to seed the template.
            frame_idx: index/indices for the template seed (method-dependent).
            reduction: 'mean' | 'median' for template reduction.
            border_nan: False | True | 'min' | 'copy' border handling on apply.
            interpolation: 'bicubic' | 'bilinear' resampling on apply.
            device: 'auto' | 'cpu' | 'cuda' (detection needs cuda/cpu).
            dtype: compute dtype (torch.float32 recommended).
            batch_size: frames processed per chunk (bounds memory); 0/None = all.
        """
        self.max_shifts = tuple(max_shifts)
        self.upsample_factor_fft = upsample_factor_fft

        self.pw_rigid = pw_rigid
        self.overlaps = tuple(overlaps)
        self.strides = tuple(strides)
        self.max_deviation_rigid = max_deviation_rigid

        self.initialization_method = initialization_method
        self.n_init_frames = n_init_frames
        self.frame_idx = frame_idx
        self.reduction = reduction

        self.border_nan = border_nan
        self.interpolation = interpolation
        self.device = _resolve_device(device)
        self.dtype = dtype
        self.batch_size = batch_size

        # State.
        self.template = None
        self.rigid_shifts = None        # (N, 2) tensor
        self.pwrigid_shifts = None      # (shift_row_grid, shift_col_grid) tensors
        self._is_fit = False

    # -- helpers -----------------------------------------------------------

    def _as_frames(self, frames):
        if isinstance(frames, np.ndarray):
            return torch.from_numpy(np.ascontiguousarray(frames)).to(self.device, self.dtype)
        return frames.to(self.device, self.dtype)

    def _compute_template(self, frames):
        method, n = self.initialization_method, self.n_init_frames
        total = frames.shape[0]
        if method == "first_n":
            inds = torch.arange(min(n, total), device=self.device)
        elif method == "even":
            inds = torch.linspace(0, total - 1, n, device=self.device).long()
        elif method == "random":
            inds = torch.randperm(total, device=self.device)[:n]
        elif method == "single":
            inds = torch.as_tensor(np.atleast_1d(self.frame_idx), device=self.device)
        else:
            raise ValueError(f"Unknown initialization_method {method!r}.")

        seed = frames[inds]
        reduce = torch.median if self.reduction == "median" else torch.mean
        template = (reduce(seed, dim=0).values if self.reduction == "median"
                    else reduce(seed, dim=0))

        # One batched refinement pass: register all frames to the seed, then
        # average the corrected stack (chunked to bound memory).
        acc = torch.zeros_like(template)
        for lo, hi in _chunks(total, self.batch_size):
            sh = register_translation_batch(
                frames[lo:hi], template,
                upsample_factor=self.upsample_factor_fft, max_shifts=self.max_shifts,
            )
            corr = apply_shifts_rigid(frames[lo:hi], sh, mode=self.interpolation,
                                      border_nan=False)
            acc += corr.sum(0)
        return acc / total

    # -- API ---------------------------------------------------------------

    def fit(self, frames, template=None):
        frames = self._as_frames(frames)
        if frames.ndim != 3:
            raise ValueError("`frames` must be (n_frames, height, width).")
        n = frames.shape[0]

        if template is not None:
            self.template = self._as_frames(template[None])[0]
        else:
            logger.info("Computing template via rigid motion correction.")
            self.template = self._compute_template(frames)

        logger.info("Fitting rigid motion correction.")
        rigid = torch.empty((n, 2), device=self.device, dtype=self.dtype)
        for lo, hi in _chunks(n, self.batch_size):
            rigid[lo:hi] = register_translation_batch(
                frames[lo:hi], self.template,
                upsample_factor=self.upsample_factor_fft, max_shifts=self.max_shifts,
            )
        self.rigid_shifts = rigid

        if self.pw_rigid:
            logger.info("Fitting non-rigid motion correction.")
            rows = []
            cols = []
            for lo, hi in _chunks(n, self.batch_size):
                corr = apply_shifts_rigid(frames[lo:hi], rigid[lo:hi],
                                          mode=self.interpolation, border_nan=False)
                sr, sc = register_pwrigid_batch(
                    corr, self.template, rigid[lo:hi],
                    overlaps=self.overlaps, strides=self.strides,
                    max_deviation_rigid=self.max_deviation_rigid,
                    max_shifts=self.max_shifts, upsample_factor=self.upsample_factor_fft,
                )
                rows.append(sr)
                cols.append(sc)
            self.pwrigid_shifts = (torch.cat(rows), torch.cat(cols))

        self._is_fit = True
        return self

    def transform(self, frames):
        if not self._is_fit:
            raise NotFittedError("`fit` must be called before `transform`.")
        return_numpy = isinstance(frames, np.ndarray)
        frames = self._as_frames(frames)
        if frames.shape[0] != self.rigid_shifts.shape[0]:
            raise ValueError("`frames` length must match the fitted shifts.")
        n = frames.shape[0]

        out = torch.empty_like(frames)
        for lo, hi in _chunks(n, self.batch_size):
            corr = apply_shifts_rigid(frames[lo:hi], self.rigid_shifts[lo:hi],
                                      mode=self.interpolation, border_nan=self.border_nan)
            if self.pw_rigid:
                sr, sc = self.pwrigid_shifts
                corr = apply_shifts_pwrigid(corr, sr[lo:hi], sc[lo:hi],
                                            mode=self.interpolation)
            out[lo:hi] = corr

        return out.cpu().numpy() if return_numpy else out

    def fit_transform(self, frames, template=None):
        self.fit(frames, template)
        return self.transform(frames)


class RigidMotionCorrection(MotionCorrection):
    def __init__(self, *args, **kwargs):
        kwargs["pw_rigid"] = False
        super().__init__(*args, **kwargs)


class PWRigidMotionCorrection(MotionCorrection):
    def __init__(self, *args, **kwargs):
        kwargs["pw_rigid"] = True
        super().__init__(*args, **kwargs)


class NotFittedError(ValueError, AttributeError):
    """Raised when transform is called before fit."""
    pass
