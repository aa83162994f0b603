"""
Modernized RPC tensor computation module for Sat-MVSF.
Fully compatible with NumPy>=1.26, CuPy>=13.x, and PyTorch>=2.2.
Author: Chen Liu, 2025
License: GPLv3
"""

from __future__ import annotations

import os
import logging
import warnings
from typing import Union, Tuple

import numpy as np

warnings.filterwarnings("ignore", category=FutureWarning)

logger = logging.getLogger(__name__)

# ===================================================================
#  GPU backend detection (CuPy if available; otherwise NumPy fallback)
# ===================================================================
_use_gpu = False
try:
    import cupy as cp  # type: ignore
    try:
        _ = cp.zeros((1,))
        _ = cp.cuda.runtime.getDeviceCount()
        _use_gpu = True
        logger.info("CuPy GPU backend enabled")
    except Exception as e:
        logger.warning(f"CuPy detected but unusable ({e}); falling back to NumPy CPU mode")
        import numpy as cp   # type: ignore
except ImportError:
    import numpy as cp  # type: ignore
    logger.info("CuPy not installed; using NumPy CPU mode")


# ---- torch: optional, only for type checks on inputs ----
try:
    import torch  # type: ignore
    _HAS_TORCH = True
except ImportError:
    _HAS_TORCH = False


# ===================================================================
#  Small helpers: unify cupy/numpy array handling
# ===================================================================
def _to_cp(a, dtype=None):
    """Convert input (numpy / cupy / torch tensor / list) to cp array."""
    if _HAS_TORCH and isinstance(a, torch.Tensor):
        a = a.detach().cpu().numpy()
    out = cp.asarray(a)
    if dtype is not None and out.dtype != dtype:
        out = out.astype(dtype)
    return out


def _to_numpy(a) -> np.ndarray:
    """Convert any array-like back to numpy."""
    if _use_gpu and hasattr(cp, "asnumpy"):
        try:
            return cp.asnumpy(a)
        except Exception:
            pass
    return np.asarray(a)


def _einsum_safe(subscripts, *operands):
    """einsum wrapper that works on cupy versions without 'optimize' kwarg."""
    try:
        return cp.einsum(subscripts, *operands, optimize=True)
    except TypeError:
        return cp.einsum(subscripts, *operands)


# ===================================================================
#  RPCModelParameter: polynomial tensor form of RPC equations
# ===================================================================
class RPCModelParameter:
    """
    RPC model using a symmetric 4x4x4 tensor polynomial form, evaluated with einsum.

    Notes:
        - More numerically structured but slightly slower than the flat
          polynomial form in `RPCModel` for large point sets.
        - Use this when you need symmetric tensor representation for
          downstream operations.
    """

    N_COEFF = 170  # 5 + 5 + 8 * 20

    def __init__(self, data=None):
        # 注意：不要用 mutable 默认参数！
        if data is None:
            data = np.zeros(self.N_COEFF, dtype=np.float64)
        data = _to_cp(data, dtype=cp.float64)

        if data.shape[0] != self.N_COEFF:
            raise ValueError(
                f"RPC data must have {self.N_COEFF} coefficients, got {data.shape[0]}"
            )

        (self.LINE_OFF, self.SAMP_OFF, self.LAT_OFF,
         self.LONG_OFF, self.HEIGHT_OFF) = data[0:5]
        (self.LINE_SCALE, self.SAMP_SCALE, self.LAT_SCALE,
         self.LONG_SCALE, self.HEIGHT_SCALE) = data[5:10]

        self.LNUM   = self.to_T(data[10:30])
        self.LDEM   = self.to_T(data[30:50])
        self.SNUM   = self.to_T(data[50:70])
        self.SDEM   = self.to_T(data[70:90])
        self.LATNUM = self.to_T(data[90:110])
        self.LATDEM = self.to_T(data[110:130])
        self.LONNUM = self.to_T(data[130:150])
        self.LONDEM = self.to_T(data[150:170])

    @staticmethod
    def to_T(data):
        """Convert 20 RPC coefficients into symmetric 4x4x4 tensor form."""
        data = _to_cp(data, dtype=cp.float64)
        if data.shape[0] != 20:
            raise ValueError(f"to_T expects 20 coefficients, got {data.shape[0]}")
        return cp.array([
            [
                [data[0],    data[1]/3,  data[2]/3,  data[3]/3],
                [data[1]/3,  data[7]/3,  data[4]/6,  data[5]/6],
                [data[2]/3,  data[4]/6,  data[8]/3,  data[6]/6],
                [data[3]/3,  data[5]/6,  data[6]/6,  data[9]/3],
            ],
            [
                [data[1]/3,  data[7]/3,  data[4]/6,  data[5]/6],
                [data[7]/3,  data[11],   data[14]/3, data[17]/3],
                [data[4]/6,  data[14]/3, data[12]/3, data[10]/6],
                [data[5]/6,  data[17]/3, data[10]/6, data[13]/3],
            ],
            [
                [data[2]/3,  data[4]/6,  data[8]/3,  data[6]/6],
                [data[4]/6,  data[14]/3, data[12]/3, data[10]/6],
                [data[8]/3,  data[12]/3, data[15],   data[18]/3],
                [data[6]/6,  data[10]/6, data[18]/3, data[16]/3],
            ],
            [
                [data[3]/3,  data[5]/6,  data[6]/6,  data[9]/3],
                [data[5]/6,  data[17]/3, data[10]/6, data[13]/3],
                [data[6]/6,  data[10]/6, data[18]/3, data[16]/3],
                [data[9]/3,  data[13]/3, data[16]/3, data[19]],
            ],
        ], dtype=cp.float64)

    @staticmethod
    def QC_cal_en(x, T):
        """Efficient cubic tensor evaluation with einsum."""
        if x.shape[0] != 4:
            raise ValueError(f"x must have shape[0]==4, got shape={x.shape}")
        if T.shape != (4, 4, 4):
            raise ValueError(f"T must be 4x4x4, got shape={T.shape}")
        return _einsum_safe("ijk,in,jn,kn->n", T, x, x, x)

    def load_dirpc_from_file(self, filepath: str) -> None:
        """
        Load RPC coefficients from a whitespace-delimited text file.

        Expected format: each non-empty, non-comment line has at least
        two whitespace-separated tokens: KEY VALUE. We take VALUE.
        """
        if not os.path.exists(filepath):
            raise FileNotFoundError(f"Cannot find RPC file: {filepath}")

        values = []
        with open(filepath, "r", encoding="utf-8-sig", errors="replace") as f:
            for lineno, line in enumerate(f, 1):
                line = line.strip()
                if not line or line.startswith("#"):
                    continue
                parts = line.split()
                if len(parts) < 2:
                    continue
                try:
                    val_str = parts[1].rstrip(":").rstrip(",")
                    values.append(float(val_str))
                except ValueError as e:
                    raise ValueError(
                        f"Cannot parse value at line {lineno} of {filepath}: {line!r}"
                    ) from e

        if len(values) != self.N_COEFF:
            raise ValueError(
                f"RPC file {filepath} has {len(values)} values, expected {self.N_COEFF}"
            )

        self.__init__(np.asarray(values, dtype=np.float64))

    def RPC_OBJ2PHOTO(self, lat, lon, hei) -> Tuple[np.ndarray, np.ndarray]:
        """(lat, lon, h) -> (sample, line)."""
        lat = _to_cp(lat, dtype=cp.float64)
        lon = _to_cp(lon, dtype=cp.float64)
        hei = _to_cp(hei, dtype=cp.float64)

        # 归一化（不在 x 上原地改，直接构造归一化后的分量）
        lon_n = (lon - self.LONG_OFF)   / self.LONG_SCALE
        lat_n = (lat - self.LAT_OFF)    / self.LAT_SCALE
        hei_n = (hei - self.HEIGHT_OFF) / self.HEIGHT_SCALE
        ones = cp.ones_like(lat_n)
        x = cp.stack((ones, lon_n, lat_n, hei_n), axis=0)

        samp = self.QC_cal_en(x, self.SNUM) / self.QC_cal_en(x, self.SDEM)
        line = self.QC_cal_en(x, self.LNUM) / self.QC_cal_en(x, self.LDEM)
        samp = samp * self.SAMP_SCALE + self.SAMP_OFF
        line = line * self.LINE_SCALE + self.LINE_OFF
        return _to_numpy(samp), _to_numpy(line)

    def RPC_PHOTO2OBJ(self, samp, line, hei) -> Tuple[np.ndarray, np.ndarray]:
        """(sample, line, h) -> (lat, lon)."""
        samp = _to_cp(samp, dtype=cp.float64)
        line = _to_cp(line, dtype=cp.float64)
        hei  = _to_cp(hei,  dtype=cp.float64)

        line_n = (line - self.LINE_OFF)   / self.LINE_SCALE
        samp_n = (samp - self.SAMP_OFF)   / self.SAMP_SCALE
        hei_n  = (hei  - self.HEIGHT_OFF) / self.HEIGHT_SCALE
        ones = cp.ones_like(line_n)
        x = cp.stack((ones, line_n, samp_n, hei_n), axis=0)

        lat = self.QC_cal_en(x, self.LATNUM) / self.QC_cal_en(x, self.LATDEM)
        lon = self.QC_cal_en(x, self.LONNUM) / self.QC_cal_en(x, self.LONDEM)
        lat = lat * self.LAT_SCALE  + self.LAT_OFF
        lon = lon * self.LONG_SCALE + self.LONG_OFF
        return _to_numpy(lat), _to_numpy(lon)


# ===================================================================
#  RPCModel: simplified polynomial representation (vectorized)
# ===================================================================
class RPCModel:
    """
    Vectorized RPC model for forward/backward projection.

    Flat 20-coefficient polynomial form; faster than `RPCModelParameter`
    for large point sets (typical use case).
    """

    N_COEFF = 170

    def __init__(self, data=None):
        if data is None:
            data = np.zeros(self.N_COEFF, dtype=np.float64)
        data = _to_cp(data, dtype=cp.float64)
        if data.shape[0] != self.N_COEFF:
            raise ValueError(
                f"RPC data must have {self.N_COEFF} coefficients, got {data.shape[0]}"
            )
        (
            self.LINE_OFF, self.SAMP_OFF, self.LAT_OFF, self.LONG_OFF, self.HEIGHT_OFF,
            self.LINE_SCALE, self.SAMP_SCALE, self.LAT_SCALE, self.LONG_SCALE, self.HEIGHT_SCALE
        ) = data[0:10]
        self.LNUM,   self.LDEM   = data[10:30],  data[30:50]
        self.SNUM,   self.SDEM   = data[50:70],  data[70:90]
        self.LATNUM, self.LATDEM = data[90:110], data[110:130]
        self.LONNUM, self.LONDEM = data[130:150], data[150:170]

    @staticmethod
    def RPC_PLH_COEF(P, L, H):
        """Construct 20 polynomial coefficients for cubic RPC evaluation."""
        P = _to_cp(P, dtype=cp.float64)
        L = _to_cp(L, dtype=cp.float64)
        H = _to_cp(H, dtype=cp.float64)
        return cp.stack([
            cp.ones_like(P),
            L, P, H,
            L * P, L * H, P * H,
            L * L, P * P, H * H,
            P * L * H, L**3, L * P**2, L * H**2,
            L**2 * P, P**3, P * H**2, L**2 * H, P**2 * H, H**3
        ], axis=-1)

    def RPC_OBJ2PHOTO(self, lat, lon, hei) -> Tuple[np.ndarray, np.ndarray]:
        lat = _to_cp(lat, dtype=cp.float64)
        lon = _to_cp(lon, dtype=cp.float64)
        hei = _to_cp(hei, dtype=cp.float64)

        lat_n = (lat - self.LAT_OFF)    / self.LAT_SCALE
        lon_n = (lon - self.LONG_OFF)   / self.LONG_SCALE
        hei_n = (hei - self.HEIGHT_OFF) / self.HEIGHT_SCALE

        coef = self.RPC_PLH_COEF(lat_n, lon_n, hei_n)
        samp = cp.sum(coef * self.SNUM, axis=-1) / cp.sum(coef * self.SDEM, axis=-1)
        line = cp.sum(coef * self.LNUM, axis=-1) / cp.sum(coef * self.LDEM, axis=-1)
        samp = samp * self.SAMP_SCALE + self.SAMP_OFF
        line = line * self.LINE_SCALE + self.LINE_OFF
        return _to_numpy(samp), _to_numpy(line)

    def RPC_PHOTO2OBJ(self, samp, line, hei) -> Tuple[np.ndarray, np.ndarray]:
        samp = _to_cp(samp, dtype=cp.float64)
        line = _to_cp(line, dtype=cp.float64)
        hei  = _to_cp(hei,  dtype=cp.float64)

        samp_n = (samp - self.SAMP_OFF)   / self.SAMP_SCALE
        line_n = (line - self.LINE_OFF)   / self.LINE_SCALE
        hei_n  = (hei  - self.HEIGHT_OFF) / self.HEIGHT_SCALE

        coef = self.RPC_PLH_COEF(samp_n, line_n, hei_n)
        lat = cp.sum(coef * self.LATNUM, axis=-1) / cp.sum(coef * self.LATDEM, axis=-1)
        lon = cp.sum(coef * self.LONNUM, axis=-1) / cp.sum(coef * self.LONDEM, axis=-1)
        lat = lat * self.LAT_SCALE  + self.LAT_OFF
        lon = lon * self.LONG_SCALE + self.LONG_OFF
        return _to_numpy(lat), _to_numpy(lon)