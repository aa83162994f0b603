from __future__ import annotations
import numpy as np

import torch
from torch import Tensor

import torch.nn as nn
import torch.nn.functional as F

from torch.nn import Linear, GroupNorm

from itertools import chain
import os
import io
import contextlib
import socket
import urllib.error
import warnings
import math

from deepinv.utils.io import DownloadError


def tensor2array(img: Tensor) -> np.ndarray:
    img = img.cpu().detach().numpy()
    if img.shape[0] == 1:  # Grayscale case: cast to numpy format (W,H)
        img = img[0]
    else:  # All other cases: cast to numpy format (W,H,C)
        img = np.transpose(img, (1, 2, 0))
    return img


def array2tensor(img: np.ndarray) -> Tensor:
    if len(img.shape) == 2:  # Grayscale case: back to (1,W,H)
        out = torch.from_numpy(img).unsqueeze(0)
    else:  # All other cases: back to (C,W,H)
        out = torch.from_numpy(img).permute(2, 0, 1)
    return out


def get_weights_url(model_name, file_name):
    return (
        "https://huggingface.co/deepinv/"
        + model_name
        + "/resolve/main/"
        + file_name
        + "?download=true"
    )


def test_pad(model, L, modulo=16):
    """
    Pads the image to fit the model's expected image size.

    Code borrowed from Kai Zhang https://github.com/cszn/DPIR/tree/master/models
    """
    spatials = L.size()[2:]
    padding = tuple(int(np.ceil(s / modulo) * modulo - s) for s in spatials)
    padding = tuple(chain.from_iterable((0, v) for v in reversed(padding)))
    L = {2: nn.ReplicationPad2d, 3: nn.ReplicationPad3d}[len(spatials)](padding)(L)
    E = model(L)
    E = E[(...,) + tuple(slice(0, s) for s in spatials)]
    return E


def test_onesplit(model, L, refield=32, sf=1):
    """
    Changes the size of the image to fit the model's expected image size.

    Code borrowed from Kai Zhang https://github.com/cszn/DPIR/tree/master/models.

    :param model: model.
    :param L: input Low-quality image.
    :param refield: effective receptive field of the network, 32 is enough.
    :param sf: scale factor for super-resolution, otherwise 1.
    """
    h, w = L.size()[-2:]
    top = slice(0, (h // 2 // refield + 1) * refield)
    bottom = slice(h - (h // 2 // refield + 1) * refield, h)
    left = slice(0, (w // 2 // refield + 1) * refield)
    right = slice(w - (w // 2 // refield + 1) * refield, w)
    Ls = [
        L[..., top, left],
        L[..., top, right],
        L[..., bottom, left],
        L[..., bottom, right],
    ]
    Es = [model(Ls[i]) for i in range(4)]
    b, c = Es[0].size()[:2]
    E = torch.zeros(b, c, sf * h, sf * w).type_as(L)
    E[..., : h // 2 * sf, : w // 2 * sf] = Es[0][..., : h // 2 * sf, : w // 2 * sf]
    E[..., : h // 2 * sf, w // 2 * sf : w * sf] = Es[1][
        ..., : h // 2 * sf, (-w + w // 2) * sf :
    ]
    E[..., h // 2 * sf : h * sf, : w // 2 * sf] = Es[2][
        ..., (-h + h // 2) * sf :, : w // 2 * sf
    ]
    E[..., h // 2 * sf : h * sf, w // 2 * sf : w * sf] = Es[3][
        ..., (-h + h // 2) * sf :, (-w + w // 2) * sf :
    ]
    return E


# Code to build 2D or 3D variants of network components, based on the 'dim' keyword


def fix_dim(dim: str | int) -> int:
    """
    Takes in dim, checks if it is in allowed range (2 or 3) and returns dim as int
    :param str, int dim: dimensionality; can be 2 or 3 and specified as str ('2d', '2', '3D', ...)
    """
    if isinstance(dim, str):
        if len(dim) == 1:
            dim_int = int(dim)
        elif len(dim) == 2:
            dim_int = int(dim[0])  # this silently allows other formats than f"{dim}d"..
        else:  # pragma: no cover
            raise ValueError(f"dim must be int, or '3', '2d', '3D', etc., got {dim}")
    elif isinstance(dim, int):
        dim_int = dim
    else:  # pragma: no cover
        raise ValueError(f"dim must be of type str or int, got {dim} ({type(dim)})")
    if dim_int not in [2, 3]:  # pragma: no cover
        raise ValueError(
            f"Only 2D or 3D architectures are supported, got dim={dim_int}"
        )
    return dim_int


def conv_nd(dim: int) -> nn.Module:
    return {1: nn.Conv1d, 2: nn.Conv2d, 3: nn.Conv3d}[dim]


def batchnorm_nd(dim: int) -> nn.Module:
    return {2: nn.BatchNorm2d, 3: nn.BatchNorm3d}[dim]


def conv_transpose_nd(dim: int) -> nn.Module:
    return {2: nn.ConvTranspose2d, 3: nn.ConvTranspose3d}[dim]


def maxpool_nd(dim: int) -> nn.Module:
    return {2: nn.MaxPool2d, 3: nn.MaxPool3d}[dim]


def avgpool_nd(dim: int) -> nn.Module:
    return {1: nn.AvgPool1d, 2: nn.AvgPool2d, 3: nn.AvgPool3d}[dim]


def instancenorm_nd(dim: int) -> nn.Module:
    return {2: nn.InstanceNorm2d, 3: nn.InstanceNorm3d}[dim]


# Basic blocks for defining the architecture of the models
# Adapted from https://github.com/NVlabs/edm

"""
Model architectures and preconditioning schemes used in the paper
Elucidating the Design Space of Diffusion-Based Generative Models: https://arxiv.org/pdf/2206.00364

"""

# ----------------------------------------------------------------------------
# Unified routine for initializing weights and biases.


def weight_init(shape, mode, fan_in, fan_out):
    if mode == "xavier_uniform":
        return np.sqrt(6 / (fan_in + fan_out)) * (torch.rand(*shape) * 2 - 1)
    if mode == "xavier_normal":
        return np.sqrt(2 / (fan_in + fan_out)) * torch.randn(*shape)
    if mode == "kaiming_uniform":
        return np.sqrt(3 / fan_in) * (torch.rand(*shape) * 2 - 1)
    if mode == "kaiming_normal":
        return np.sqrt(1 / fan_in) * torch.randn(*shape)
    raise ValueError(f'Invalid init mode "{mode}"')


# ----------------------------------------------------------------------------
# Convolutional layer with optional up/downsampling.


class UpDownConv2d(torch.nn.Module):
    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel: int,
        bias: bool = True,
        up: bool = False,
        down: bool = False,
        resample_filter=(1, 1),
        fused_resample: bool = False,
        init_mode: str = "kaiming_normal",
        init_weight: float = 1,
        init_bias: float = 0,
    ):
        if up and down:  # pragma: no cover
            raise ValueError("up and down cannot both be True")
        super().__init__()
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.up = up
        self.down = down
        self.fused_resample = fused_resample
        init_kwargs = dict(
            mode=init_mode,
            fan_in=in_channels * kernel * kernel,
            fan_out=out_channels * kernel * kernel,
        )
        self.weight = (
            torch.nn.Parameter(
                weight_init([out_channels, in_channels, kernel, kernel], **init_kwargs)
                * init_weight
            )
            if kernel
            else None
        )
        self.bias = (
            torch.nn.Parameter(weight_init([out_channels], **init_kwargs) * init_bias)
            if kernel and bias
            else None
        )
        f = torch.as_tensor(resample_filter, dtype=torch.float32)
        f = f.outer(f).unsqueeze(0).unsqueeze(1) / f.sum().square()
        self.register_buffer("resample_filter", f if up or down else None)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        w = self.weight.to(x.dtype) if self.weight is not None else None
        b = self.bias.to(x.dtype) if self.bias is not None else None
        f = (
            self.resample_filter.to(x.dtype)
            if self.resample_filter is not None
            else None
        )
        w_pad = w.shape[-1] // 2 if w is not None else 0
        f_pad = (f.shape[-1] - 1) // 2 if f is not None else 0

        if self.fused_resample and self.up and w is not None:
            x = F.conv_transpose2d(
                x,
                f.mul(4).tile([self.in_channels, 1, 1, 1]),
                groups=self.in_channels,
                stride=2,
                padding=max(f_pad - w_pad, 0),
            )
            x = F.conv2d(x, w, padding=max(w_pad - f_pad, 0))
        elif self.fused_resample and self.down and w is not None:
            x = F.conv2d(x, w, padding=w_pad + f_pad)
            x = F.conv2d(
                x,
                f.tile([self.out_channels, 1, 1, 1]),
                groups=self.out_channels,
                stride=2,
            )
        else:
            if self.up:
                x = F.conv_transpose2d(
                    x,
                    f.mul(4).tile([self.in_channels, 1, 1, 1]),
                    groups=self.in_channels,
                    stride=2,
                    padding=f_pad,
                )
            if self.down:
                x = F.conv2d(
                    x,
                    f.tile([self.in_channels, 1, 1, 1]),
                    groups=self.in_channels,
                    stride=2,
                    padding=f_pad,
                )
            if w is not None:
                x = F.conv2d(x, w, padding=w_pad)
        if b is not None:
            x = x.add_(b.reshape(1, -1, 1, 1))
        return x


# ----------------------------------------------------------------------------
# Unified U-Net block with optional up/downsampling and self-attention.
# Represents the union of all features employed by the DDPM++, NCSN++, and
# ADM architectures.


class UNetBlock(torch.nn.Module):
    def __init__(
        self,
        in_channels,
        out_channels,
        emb_channels,
        up=False,
        down=False,
        attention=False,
        num_heads=None,
        channels_per_head=64,
        dropout=0,
        skip_scale=1,
        eps=1e-5,
        resample_filter=(1, 1),
        resample_proj=False,
        adaptive_scale=True,
        init=None,
        init_zero=None,
        init_attn=None,
    ):
        if init is None:
            init = dict()
        if init_zero is None:
            init_zero = dict(init_weight=0)
        super().__init__()
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.emb_channels = emb_channels
        self.num_heads = (
            0
            if not attention
            else (
                num_heads
                if num_heads is not None
                else out_channels // channels_per_head
            )
        )
        self.dropout = dropout
        self.skip_scale = skip_scale
        self.adaptive_scale = adaptive_scale

        self.norm0 = GroupNorm(num_channels=in_channels, num_groups=32, eps=eps)
        self.conv0 = UpDownConv2d(
            in_channels=in_channels,
            out_channels=out_channels,
            kernel=3,
            up=up,
            down=down,
            resample_filter=resample_filter,
            **init,
        )
        self.affine = Linear(
            in_features=emb_channels,
            out_features=out_channels * (2 if adaptive_scale else 1),
        )
        self.norm1 = GroupNorm(num_channels=out_channels, num_groups=32, eps=eps)
        self.conv1 = UpDownConv2d(
            in_channels=out_channels, out_channels=out_channels, kernel=3, **init_zero
        )

        self.skip = None
        if out_channels != in_channels or up or down:
            kernel = 1 if resample_proj or out_channels != in_channels else 0
            self.skip = UpDownConv2d(
                in_channels=in_channels,
                out_channels=out_channels,
                kernel=kernel,
                up=up,
                down=down,
                resample_filter=resample_filter,
                **init,
            )

        if self.num_heads:
            self.norm2 = GroupNorm(num_channels=out_channels, num_groups=32, eps=eps)
            self.qkv = UpDownConv2d(
                in_channels=out_channels,
                out_channels=out_channels * 3,
                kernel=1,
                **(init_attn if init_attn is not None else init),
            )
            self.proj = UpDownConv2d(
                in_channels=out_channels,
                out_channels=out_channels,
                kernel=1,
                **init_zero,
            )

    def forward(self, x, emb):
        orig = x
        x = self.conv0(F.silu(self.norm0(x)))

        params = self.affine(emb).unsqueeze(2).unsqueeze(3).to(x.dtype)
        if self.adaptive_scale:
            scale, shift = params.chunk(chunks=2, dim=1)
            x = F.silu(torch.addcmul(shift, self.norm1(x), scale + 1))
        else:
            x = F.silu(self.norm1(x.add_(params)))

        x = self.conv1(F.dropout(x, p=self.dropout, training=self.training))
        x = x.add_(self.skip(orig) if self.skip is not None else orig)
        x = x * self.skip_scale

        if self.num_heads:
            q, k, v = (
                self.qkv(self.norm2(x))
                .reshape(
                    x.shape[0] * self.num_heads, x.shape[1] // self.num_heads, 3, -1
                )
                .unbind(2)
            )

            a = F.scaled_dot_product_attention(
                q.transpose(1, 2),  # [N, Q, C]
                k.transpose(1, 2),  # [N, K, C]
                v.transpose(1, 2),  # [N, K, C]
                dropout_p=0.0,
                is_causal=False,
            ).transpose(
                1, 2
            )  # back to [N, C, Q]

            x = self.proj(a.reshape(*x.shape)).add_(x)
            x = x * self.skip_scale
        return x


# ----------------------------------------------------------------------------
# Timestep embedding used in the DDPM++ and ADM architectures.


class PositionalEmbedding(torch.nn.Module):
    def __init__(
        self, num_channels: int, max_positions: int = 10000, endpoint: bool = False
    ):
        super().__init__()
        self.num_channels = num_channels
        self.max_positions = max_positions
        self.endpoint = endpoint

    def forward(self, x: Tensor):
        freqs = torch.arange(
            start=0, end=self.num_channels // 2, dtype=torch.float32, device=x.device
        )
        freqs = freqs / (self.num_channels // 2 - (1 if self.endpoint else 0))
        freqs = (1 / self.max_positions) ** freqs
        x = x.outer(freqs.to(x.dtype))
        x = torch.cat([x.cos(), x.sin()], dim=1)
        return x


# ----------------------------------------------------------------------------
# Timestep embedding used in the NCSN++ architecture.


class FourierEmbedding(torch.nn.Module):
    def __init__(
        self,
        num_channels: int,
        scale: int = 16,
        device: torch.device | str = "cpu",
    ):
        super().__init__()
        self.register_buffer(
            "freqs", torch.randn(num_channels // 2, device=device) * scale
        )

    def forward(self, x: Tensor):
        x = x.outer((2 * np.pi * self.freqs).to(x.dtype))
        x = torch.cat([x.cos(), x.sin()], dim=1)
        return x


def initialize_3d_from_2d(
    model_3d: nn.Module, ckpt_2d: dict[str, torch.Tensor], isotropic: bool = False
) -> None:
    r"""
    Initialize a 3D model's Conv3d and ConvTranspose3d layers from a its 2D counterpart layers.
    Useful when no pretrained 3D weights are available.

    :param nn.Module model_3d: 3D model to be initialized.
    :param dict[str, torch.Tensor] ckpt_2d: state_dict of the 2D counterpart of model_3d.
    :param bool isotropic: If True, for odd kernel sizes, the weights are copied to the center slice
        of all three dimensions and averaged. For even kernel sizes, the 2D weights are
        divided by the kernel size and copied to all slices in all three dimensions. Otherwise,
        only the depth dimension is considered.
    """
    for name, module in model_3d.named_modules():
        if isinstance(module, (nn.Conv3d, nn.ConvTranspose3d)):
            module.weight.data[:] = 0.0
            with torch.no_grad():
                if module.kernel_size[0] % 2 == 1:
                    if isotropic:
                        module.weight[:, :, module.kernel_size[0] // 2 + 1] = ckpt_2d[
                            f"{name}.weight"
                        ]

                        module.weight[
                            :, :, :, module.kernel_size[1] // 2 + 1, :
                        ] += ckpt_2d[f"{name}.weight"]

                        module.weight[..., module.kernel_size[2] // 2 + 1] += ckpt_2d[
                            f"{name}.weight"
                        ]

                        module.weight /= 3.0
                    else:
                        module.weight[:, :, module.kernel_size[0] // 2 + 1] = ckpt_2d[
                            f"{name}.weight"
                        ]
                else:
                    if isotropic:
                        module.weight[:] = (
                            ckpt_2d[f"{name}.weight"][:, :, None]
                            / module.kernel_size[0]
                        )
                        module.weight[:] += (
                            ckpt_2d[f"{name}.weight"][:, :, :, None]
                            / module.kernel_size[1]
                        )
                        module.weight[:] += (
                            ckpt_2d[f"{name}.weight"][..., None] / module.kernel_size[2]
                        )
                        module.weight /= 3.0
                    else:
                        module.weight[:] = (
                            ckpt_2d[f"{name}.weight"][:, :, None]
                            / module.kernel_size[0]
                        )

                if module.bias is not None:
                    module.bias[:] = ckpt_2d[f"{name}.bias"]


def load_state_dict_from_url(*args, **kwargs) -> dict:
    """
    A wrapper for :func:`torch.hub.load_state_dict_from_url` that respects the `DEEPINV_DOWNLOAD_VERBOSE`
    environment variable. If set to 0, stdout prints are suppressed.

    Network-level failures (HTTP errors, connection failures, timeouts) are
    re-raised as :class:`deepinv.utils.DownloadError` so they can be handled
    uniformly with other deepinv downloads.
    """
    # Read the environment variable. Default to "1" (True/Verbose) if not set.
    env_value = os.environ.get("DEEPINV_DOWNLOAD_VERBOSE", "1").lower()

    # Check if the user explicitly turned verbosity off
    is_silent = env_value in ("0", "false", "no", "f")

    # Choose the context manager based on the is_silent flag
    if is_silent:
        ctx = contextlib.redirect_stdout(io.StringIO())
        # Optional: Also force progress=False to hide the stderr progress bar
        kwargs["progress"] = False
    else:
        # nullcontext() does nothing, allowing stdout to print normally
        ctx = contextlib.nullcontext()

    try:
        with ctx:
            return torch.hub.load_state_dict_from_url(*args, **kwargs)
    except (
        urllib.error.URLError,
        ConnectionError,
        TimeoutError,
        socket.gaierror,
    ) as exc:
        url = args[0] if args else kwargs.get("url", "<unknown>")
        raise DownloadError(f"Failed to download state dict from {url}: {exc}") from exc


def trunc_normal_(
    tensor: torch.Tensor,
    mean: float = 0.0,
    std: float = 1.0,
    a: float = -2.0,
    b: float = 2.0,
) -> torch.Tensor:
    """Truncated normal distribution for network parameter initialization.

    This code was taken and modified from `timm <https://github.com/huggingface/pytorch-image-models/tree/main>`_ .
    To avoid having it as an additional dependency.
    """
    # Method based on https://people.sc.fsu.edu/~jburkardt/presentations/truncated_normal.pdf
    with torch.no_grad():

        def norm_cdf(x):
            return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

        if (mean < a - 2 * std) or (mean > b + 2 * std):
            warnings.warn(
                "mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
                "The distribution of values may be incorrect.",
                stacklevel=2,
            )

        # Values are generated by using a truncated uniform distribution and
        # then using the inverse CDF for the normal distribution.
        l = norm_cdf((a - mean) / std)
        u = norm_cdf((b - mean) / std)
        tensor.uniform_(2 * l - 1, 2 * u - 1)

        # Use inverse cdf transform for normal distribution to get truncated
        # standard normal
        tensor.erfinv_()

        tensor.mul_(std * math.sqrt(2.0))
        tensor.add_(mean)

        tensor.clamp_(min=a, max=b)
        return tensor


def _drop_path(
    x: torch.Tensor,
    drop_prob: float = 0.0,
    training: bool = False,
    scale_by_keep: bool = True,
) -> torch.Tensor:
    """Drop paths (Stochastic Depth) per sample (when applied in main path of residual blocks).

    This code was taken and modified from `timm <https://github.com/huggingface/pytorch-image-models/tree/main>`_ .
    To avoid having it as an additional dependency.
    """
    if drop_prob == 0.0 or not training:
        return x
    keep_prob = 1 - drop_prob
    shape = (x.shape[0],) + (1,) * (x.ndim - 1)
    random_tensor = x.new_empty(shape).bernoulli_(keep_prob)
    if keep_prob > 0.0 and scale_by_keep:
        random_tensor.div_(keep_prob)
    return x * random_tensor


class DropPath(nn.Module):
    """Drop paths (Stochastic Depth) per sample  (when applied in main path of residual blocks). Taken from timm"""

    def __init__(self, drop_prob: float = 0.0, scale_by_keep: bool = True):
        super().__init__()
        self.drop_prob = drop_prob
        self.scale_by_keep = scale_by_keep

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _drop_path(x, self.drop_prob, self.training, self.scale_by_keep)

    def extra_repr(self) -> str:
        return f"drop_prob={round(self.drop_prob,3):0.3f}"
