import math
import warnings
from typing import cast

import torch
from torch import Tensor, nn

from aimnet import nbops, ops
from aimnet.kernels import WARP_CUDA_AVAILABLE, conv_sv_2d_sp
from aimnet.kernels.triton_support import triton_kernels_supported


class AEVSV(nn.Module):
    """AEV module to expand distances and vectors toneighbors over shifted Gaussian basis functions.

    Parameters:
    -----------
    rmin : float, optional
        Minimum distance for the Gaussian basis functions. Default is 0.8.
    rc_s : float, optional
        Cutoff radius for scalar features. Default is 5.0.
    nshifts_s : int, optional
        Number of shifts for scalar features. Default is 16.
    eta_s : Optional[float], optional
        Width of the Gaussian basis functions for scalar features. Will estimate reasonable default.
    rc_v : Optional[float], optional
        Cutoff radius for vector features. Default is same as `rc_s`.
    nshifts_v : Optional[int], optional
        Number of shifts for vector features. Default is same as `nshifts_s`
    eta_v : Optional[float], optional
        Width of the Gaussian basis functions for vector features. Will estimate reasonable default.
    shifts_s : Optional[List[float]], optional
        List of shifts for scalar features. Default equidistant between `rmin` and `rc_s`
    shifts_v : Optional[List[float]], optional
        List of shifts for vector features. Default equidistant between `rmin` and `rc_v`
    """

    def __init__(
        self,
        rmin: float = 0.8,
        rc_s: float = 5.0,
        nshifts_s: int = 16,
        eta_s: float | None = None,
        rc_v: float | None = None,
        nshifts_v: int | None = None,
        eta_v: float | None = None,
        shifts_s: list[float] | None = None,
        shifts_v: list[float] | None = None,
    ):
        super().__init__()

        self._init_basis(rc_s, eta_s, nshifts_s, shifts_s, rmin, mod="_s")
        if rc_v is not None:
            if rc_v > rc_s:
                raise ValueError("rc_v must be less than or equal to rc_s")
            if nshifts_v is None:
                raise ValueError("nshifts_v must not be None")
            self._init_basis(rc_v, eta_v, nshifts_v, shifts_v, rmin, mod="_v")
            self._dual_basis = True
        else:
            # dummy init
            self._init_basis(rc_s, eta_s, nshifts_s, shifts_s, rmin, mod="_v")
            self._dual_basis = False

        self.dmat_fill = rc_s

    def _init_basis(self, rc, eta, nshifts, shifts, rmin, mod="_s"):
        self.register_parameter(
            "rc" + mod,
            nn.Parameter(torch.tensor(rc, dtype=torch.float), requires_grad=False),
        )
        if eta is None:
            eta = (1 / ((rc - rmin) / nshifts)) ** 2
        self.register_parameter(
            "eta" + mod,
            nn.Parameter(torch.tensor(eta, dtype=torch.float), requires_grad=False),
        )
        if shifts is None:
            shifts = torch.linspace(rmin, rc, nshifts + 1)[:nshifts]
        else:
            shifts = torch.as_tensor(shifts, dtype=torch.float)
        self.register_parameter("shifts" + mod, nn.Parameter(shifts, requires_grad=False))

    def forward(self, data: dict[str, Tensor]) -> dict[str, Tensor]:
        # A caller may reuse a data dictionary after changing coordinates or
        # disabling optimized kernels. Never leave an old-layout basis active.
        data.pop("g_L", None)
        # d_ij: distances to neighbors (..., m)
        # r_ij: displacement vectors to neighbors (..., m, 3)
        d_ij, r_ij = ops.calc_distances(data)
        data["d_ij"] = d_ij
        # Explicit inference-only dispatch, independent of CUDA-graph capture.
        # The calculator supplies host constants before executing the model;
        # this path does not read device scalars while a graph is captured.
        if (
            not self.training
            and "_inference_kernels" in data
            and bool(data["_inference_kernels"])
            and type(self) is AEVSV
            and getattr(self._calc_aev, "__func__", None) is _CANONICAL_CALC_AEV
            and nbops.get_nb_mode(data) == 0
            and not any(p.requires_grad for p in (self.rc_s, self.eta_s, self.shifts_s))
        ):
            from .aev_inference import dense_aev_layout

            g_layout = dense_aev_layout(self, data, d_ij, r_ij)
            data["g_L"] = g_layout
            # Keep the canonical key for consumers other than ConvSV. This is
            # a view, not a second copy of the geometry tensor.
            data["g_sv"] = g_layout.permute(0, 3, 2, 1, 4)
            return data
        # Atomic environment vectors: (..., m, g, 4)
        # 4 components = 1 scalar (radial) + 3 vector (directional)
        g_sv = self._calc_aev(r_ij, d_ij, data)
        data["g_sv"] = g_sv
        return data

    def prepare_inference(self) -> Tensor:
        """Snapshot scalar AEV constants on the host, outside model execution.

        The caller must refresh this tensor when the module parameters change.
        No cache or non-checkpoint state is retained by the module. Regular and
        graph callers use the same ``_aev_inference_constants`` data entry.
        """
        # Never inference tensors: constants cached by a first call under torch.inference_mode() must stay usable
        # by a later differentiable (forces) call, which saves them for backward on the PyTorch fallback.
        with torch.inference_mode(False):
            rc = cast(Tensor, self.rc_s).detach().to("cpu")
            eta = cast(Tensor, self.eta_s).detach().to("cpu")
            return torch.stack((eta, rc, torch.pi / rc))

    def _calc_aev(self, r_ij: Tensor, d_ij: Tensor, data: dict[str, Tensor]) -> Tensor:
        rc_s = cast(Tensor, self.rc_s)
        shifts_s = cast(Tensor, self.shifts_s)
        eta_s = cast(Tensor, self.eta_s)
        fc_ij = ops.cosine_cutoff(d_ij, rc_s)  # (..., m)
        fc_ij = nbops.mask_ij_(fc_ij, data, 0.0)
        # Apply cutoff envelope to Gaussian-expanded distances
        # Shape: (..., m, nshifts) * (..., m, 1) -> (..., m, nshifts)
        gs = ops.exp_expand(d_ij, shifts_s, eta_s) * fc_ij.unsqueeze(-1)
        # Normalize displacement vectors to unit direction vectors
        # Shape: (..., m, 3) / (..., m, 1) -> (..., m, 3)
        u_ij = r_ij / d_ij.unsqueeze(-1)
        # Combine radial basis with directional info for vector features
        # Shape: (..., m, 1, nshifts) * (..., m, 3, 1) -> (..., m, nshifts, 3)
        gv = gs.unsqueeze(-1) * u_ij.unsqueeze(-2)
        g_sv = torch.cat([gs.unsqueeze(-1), gv], dim=-1)
        return g_sv


_CANONICAL_CALC_AEV = AEVSV._calc_aev


class ConvSV(nn.Module):
    """AIMNet2 type convolution: encoding of local environment which combines geometry of local environment and atomic features.

    Parameters:
    -----------
    nshifts_s : int
        Number of shifts (gaussian basis functions) for scalar convolution.
    nchannel : int
        Number of feature channels for atomic features.
    d2features : bool, optional
        Flag indicating whether to use 2D features. Default is False.
    nshifts_v : Optional[int], optional
        Number of shifts for vector convolution. If not provided, defaults to the value of nshifts_s.
    ncomb_v : Optional[int], optional
        Number of linear combinations for vector features. If not provided, defaults to the value of nshifts_v.
    """

    def __init__(
        self,
        nshifts_s: int,
        nchannel: int,
        d2features: bool = False,
        nshifts_v: int | None = None,
        ncomb_v: int | None = None,
    ):
        super().__init__()
        nshifts_v = nshifts_v or nshifts_s
        ncomb_v = ncomb_v or nshifts_v
        agh = _init_ahg(nchannel, nshifts_v, ncomb_v)
        self.register_parameter("agh", nn.Parameter(agh, requires_grad=True))
        self.do_vector = True
        self.nchannel = nchannel
        self.d2features = d2features
        self.nshifts_s = nshifts_s
        self.nshifts_v = nshifts_v
        self.ncomb_v = ncomb_v

    def output_size(self):
        n = self.nchannel * self.nshifts_s
        if self.do_vector:
            n += self.nchannel * self.ncomb_v
        return n

    def forward(self, data: dict[str, Tensor], a: Tensor) -> Tensor:
        g_sv = data["g_sv"]
        mode = nbops.get_nb_mode(data)
        if mode == 0 and "g_L" in data:
            from .aev_inference import dense_convolution, dense_convolution_carry, geometry_carry_basis

            # Read the canonical consumer value, including changes made by an
            # AEV forward hook. In the ordinary optimized case this permutation
            # is just a view of g_L and introduces no tensor materialization.
            if "_geometry_carry" in data:
                avf_sv, data["_geometry_carry"] = dense_convolution_carry(
                    a, geometry_carry_basis(data), self.d2features
                )
            else:
                avf_sv = dense_convolution(a, g_sv.permute(0, 3, 2, 1, 4), self.d2features)
        elif mode == 2:
            a_flat = _flatten_mode2(a, "atomic features")
            g_flat = _flatten_mode2(g_sv, "ConvSV geometry")
            gather_flat = _flatten_mode2(data["_nbmat_gather"], "ConvSV gather indices")
            kernel_flat = _flatten_mode2(data["_nbmat_kernel"], "ConvSV kernel indices")
            b, n = a.shape[:2]
            use_warp = (
                self.d2features
                and a.device.type == "cuda"
                and a.dtype == torch.float32
                and g_sv.dtype == torch.float32
                and WARP_CUDA_AVAILABLE
            )
            if use_warp:
                avf_sv = conv_sv_2d_sp(
                    a_flat,
                    kernel_flat,
                    g_flat,
                    padding_value=b * n,
                    num_centers=b * n,
                ).unflatten(0, (b, n))
            else:
                if self.d2features and a.device.type == "cuda" and a.dtype == torch.float32 and not WARP_CUDA_AVAILABLE:
                    _warn_warp_cuda_unavailable()
                # Masked slots gather index 0 (system 0's first real atom), so
                # the gathered features are zeroed explicitly instead of relying
                # on ``g_sv`` having been masked by its producer.
                mask_ij = data["mask_ij"]
                a_j = a_flat.index_select(0, gather_flat.flatten()).unflatten(0, mask_ij.shape)
                # In place: a_j is a fresh index_select output, so no autograd hazard.
                a_j.masked_fill_(mask_ij.reshape(*mask_ij.shape, *([1] * (a_j.ndim - 3))), 0.0)
                if self.d2features:
                    avf_sv = torch.einsum("...mag,...mgd->...agd", a_j, g_sv)
                else:
                    avf_sv = torch.einsum("...ma,...mgd->...agd", a_j, g_sv)
        elif self.d2features:
            # The Warp kernel is float32-only and needs a CUDA-capable warp-lang
            # build (a CUDA pytorch + CPU warp-lang env is solver-reachable on
            # conda-forge); anything else falls through to the pure-torch einsum.
            if mode > 0 and a.device.type == "cuda" and a.dtype == torch.float32 and g_sv.dtype == torch.float32:
                if WARP_CUDA_AVAILABLE:
                    avf_sv = conv_sv_2d_sp(a, data["nbmat"], g_sv, transpose=_nbmat_transpose(data))
                else:
                    _warn_warp_cuda_unavailable()
                    a_j = a.index_select(0, data["nbmat"].flatten()).unflatten(0, data["nbmat"].shape)
                    avf_sv = torch.einsum("...mag,...mgd->...agd", a_j, g_sv)
            elif mode > 0:
                a_j = a.index_select(0, data["nbmat"].flatten()).unflatten(0, data["nbmat"].shape)
                avf_sv = torch.einsum("...mag,...mgd->...agd", a_j, g_sv)
            else:
                avf_sv = torch.einsum("...mag,...mgd->...agd", a.unsqueeze(1), g_sv)
        else:
            if mode > 0:
                a_j = a.index_select(0, data["nbmat"].flatten()).unflatten(0, data["nbmat"].shape)
                avf_sv = torch.einsum("...ma,...mgd->...agd", a_j, g_sv)
            else:
                avf_sv = torch.einsum("...ma,...mgd->...agd", a.unsqueeze(1), g_sv)
        return self._finish_convolution(data, avf_sv, mode)

    def _finish_convolution(self, data: dict[str, Tensor], avf_sv: Tensor, mode: int) -> Tensor:
        """Apply the shared scalar/vector output projection and atom mask."""
        if (
            mode == 0
            and bool(data.get("_inference_kernels", False))
            and avf_sv.is_cuda
            and avf_sv.dtype == torch.float32
            and avf_sv.shape[0] >= 2
            and not self.agh.requires_grad
            and triton_kernels_supported(avf_sv.device)
        ):
            try:
                from aimnet.kernels.conv_finish_triton import conv_finish
            except ImportError:
                pass
            else:
                return conv_finish(avf_sv, cast(Tensor, self.agh), data["mask_i"])
        avf_s, avf_v = avf_sv.split([1, 3], dim=-1)
        avf_v = torch.einsum("agh,...agd->...ahd", self.agh, avf_v).pow(2).sum(-1)
        out = torch.cat([avf_s.squeeze(-1).flatten(-2, -1), avf_v.flatten(-2, -1)], dim=-1)
        if mode == 1:
            return out
        # ``cat`` owns this fresh storage and its backward does not save it.
        # Retain the mask, but avoid cloning the just-created tensor in the
        # optional dense inference path (five copies in a typical model).
        inplace = mode == 0 and bool(data.get("_inference_kernels", False))
        return nbops.mask_i_(out, data, mask_value=0.0, inplace=inplace)


_CANONICAL_CONV_FORWARD = ConvSV.forward
_CANONICAL_FINISH_CONVOLUTION = ConvSV._finish_convolution
# Snapshot dispatch as well as equations: comparing to the live Module class
# would accept a class-level replacement that the grouped path then bypasses.
_CANONICAL_CONV_CALL = ConvSV.__call__
_CANONICAL_CONV_CALL_IMPL = ConvSV._call_impl
_CANONICAL_CONV_WRAPPED_CALL_IMPL = ConvSV._wrapped_call_impl


def _can_group_dense_convolutions(data: dict[str, Tensor], *convolutions: ConvSV) -> bool:
    """Only bypass module calls when their observable behavior is canonical."""
    if "g_L" not in data or nbops.get_nb_mode(data) != 0 or not bool(data.get("_inference_kernels", False)):
        return False
    hook_names = ("_forward_pre_hooks", "_forward_hooks", "_backward_pre_hooks", "_backward_hooks")
    global_hooks = torch.nn.modules.module
    if any(getattr(global_hooks, "_global" + name, {}) for name in hook_names):
        return False
    return all(
        type(conv) is ConvSV
        and not conv.training
        and getattr(conv.forward, "__func__", None) is _CANONICAL_CONV_FORWARD
        and getattr(conv._finish_convolution, "__func__", None) is _CANONICAL_FINISH_CONVOLUTION
        and type(conv).__call__ is _CANONICAL_CONV_CALL
        and getattr(conv._call_impl, "__func__", None) is _CANONICAL_CONV_CALL_IMPL
        and getattr(conv._wrapped_call_impl, "__func__", None) is _CANONICAL_CONV_WRAPPED_CALL_IMPL
        and getattr(conv, "_compiled_call_impl", None) is None
        and not any(getattr(conv, name, {}) for name in hook_names)
        for conv in convolutions
    )


def _warn_warp_cuda_unavailable() -> None:
    warnings.warn(
        "warp-lang has no CUDA support in this environment; "
        "using the slower pure-torch AEV path on CUDA tensors. "
        "Install a CUDA build of warp-lang (conda-forge: warp-lang=*=cuda*).",
        RuntimeWarning,
        stacklevel=3,
    )


def _nbmat_transpose(data: dict[str, Tensor]) -> tuple[Tensor, Tensor] | None:
    """CSR transpose of ``nbmat`` for the deterministic Warp backward, if the caller built one.

    The calculator adds it beside ``nbmat`` only with ``deterministic=True``.
    """
    csr_ptr = data.get("_nbmat_csr_ptr")
    csr_idx = data.get("_nbmat_csr_idx")
    if csr_ptr is None or csr_idx is None:
        return None
    return csr_ptr, csr_idx


def _flatten_mode2(tensor: Tensor, name: str) -> Tensor:
    """Flatten system and atom dimensions without allocating."""
    flattened = tensor.flatten(0, 1)
    if flattened._base is None:
        raise ValueError(f"mode-2 {name} must be view-flattenable")
    return flattened


def _init_ahg(b: int, m: int, n: int):
    ret = torch.zeros(b, m, n)
    for i in range(b):
        ret[i] = _init_ahg_one(m, n)  # pylint: disable=arguments-out-of-order
    return ret


def _init_ahg_one(m: int, n: int):
    # Oversample by 8x to select most orthogonal vectors via maxmin algorithm
    x = torch.arange(m).unsqueeze(0)
    a1, a2, a3, a4 = torch.randn(8 * n, 4).unsqueeze(-2).unbind(-1)
    y = a1 * torch.sin(a2 * 2 * x * math.pi / m) + a3 * torch.cos(a4 * 2 * x * math.pi / m)
    y -= y.mean(dim=-1, keepdim=True)
    y /= y.std(dim=-1, keepdim=True)

    dmat = torch.cdist(y, y)
    # most distant point
    ret = torch.zeros(n, m)
    mask = torch.ones(y.shape[0], dtype=torch.bool)
    i = dmat.sum(-1).argmax()
    ret[0] = y[i]
    mask[i] = False

    # simple maxmin implementation
    for j in range(1, n):
        mindist, _ = torch.cdist(ret[:j], y).min(dim=0)
        maxidx = torch.argsort(mindist)[mask][-1]
        ret[j] = y[maxidx]
        mask[maxidx] = False
    return ret.t()
