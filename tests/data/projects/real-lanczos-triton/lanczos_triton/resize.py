"""Validated public API and reusable geometry plans."""

import math

import torch


def _size(size, name):
    if (
        not isinstance(size, (tuple, list))
        or len(size) != 2
        or any(type(s) is not int or s <= 0 or s > 2147483647 for s in size)
    ):
        raise ValueError(f"{name} must contain two positive int32 dimensions (height, width)")
    return tuple(size)


def _options(a, antialias):
    if type(a) is not int or a not in (2, 3):
        raise ValueError("a must be 2 or 3")
    if type(antialias) is not bool:
        raise TypeError("antialias must be bool")


def _image(image):
    if not isinstance(image, torch.Tensor):
        raise TypeError("image must be a torch.Tensor")
    if image.ndim != 4 or any(d == 0 for d in image.shape):
        raise ValueError("image must be nonempty NCHW")
    if image.device.type != "cuda" or torch.version.hip is not None:
        raise ValueError("image must be on an NVIDIA CUDA device")
    if image.dtype not in (torch.float16, torch.bfloat16, torch.float32):
        raise TypeError("image must have float16, bfloat16, or float32 dtype")
    if image.requires_grad:
        raise ValueError("resize is inference-only; detach the input first")
    if image.numel() > 2147483647:
        raise ValueError("input exceeds int32 indexing capacity")


def _table(in_size, out_size, a, antialias, device):
    import triton

    from . import _kernels as kernels

    scale = max(in_size / out_size, 1.0) if antialias else 1.0
    taps = min(in_size, math.ceil(2 * a * scale))
    if taps * out_size > 2147483647:
        raise ValueError("weight table exceeds int32 indexing capacity")
    weights = torch.empty((taps, out_size), device=device, dtype=torch.float32)
    starts = torch.empty(out_size, device=device, dtype=torch.int32)
    k = min(triton.next_power_of_2(taps), 256)
    d = max(1, min(32, 1024 // k))
    kernels.weights[(triton.cdiv(out_size, d),)](
        weights, starts, in_size, out_size, a, scale, taps, k, d
    )
    return weights, starts, taps


def _extent(n, c, input_size, size):
    ih, iw = input_size
    oh, ow = size
    if n * c * max(min(ih * ow, oh * iw), oh * ow) > 2147483647:
        raise ValueError("output/intermediate exceeds int32 indexing capacity")


class Resizer:
    """Reusable fixed-geometry Lanczos plan; weights shared, image buffers not shared.

    Construct outside CUDA graph capture. Call on the same CUDA device, with
    any batch/channel count or supported dtype. Concurrent streams are supported.
    """

    def __init__(self, input_size, size, *, a=3, antialias=True, device="cuda", autotune=False):
        self.input_size = _size(input_size, "input_size")
        self.size = _size(size, "size")
        _extent(1, 1, self.input_size, self.size)
        _options(a, antialias)
        if type(autotune) is not bool:
            raise TypeError("autotune must be bool")
        self._autotune = autotune
        device = torch.device(device)
        if device.type != "cuda" or torch.version.hip is not None:
            raise ValueError("device must be an NVIDIA CUDA device")
        with torch.cuda.device(device):
            self.device = torch.device("cuda", torch.cuda.current_device())
            if torch.cuda.is_current_stream_capturing():
                raise RuntimeError("construct Resizer before CUDA graph capture")
            ih, iw = self.input_size
            oh, ow = self.size
            self._x = _table(iw, ow, a, antialias, self.device) if iw != ow else None
            self._y = _table(ih, oh, a, antialias, self.device) if ih != oh else None
            self._ready = torch.cuda.Event()
            self._ready.record()
            self._complete = False

    def __call__(self, image):
        _image(image)
        if image.device != self.device or tuple(image.shape[-2:]) != self.input_size:
            raise ValueError("input shape/device does not match Resizer")
        with torch.cuda.device(self.device):
            stream = torch.cuda.current_stream()
            if not self._complete:
                self._complete = self._ready.query()
                if not self._complete:
                    if torch.cuda.is_current_stream_capturing():
                        raise RuntimeError("warm up Resizer and synchronize before graph capture")
                    stream.wait_event(self._ready)
            for table in (self._x, self._y):
                if table is not None:
                    table[0].record_stream(stream)
                    table[1].record_stream(stream)
            return _execute(image, self.size, self._x, self._y, autotune=self._autotune)


def _execute(image, size, xtable, ytable, *, autotune=False):
    import triton

    from . import _kernels as kernels

    n, c, ih, iw = image.shape
    oh, ow = size
    _extent(n, c, (ih, iw), size)
    x = image.contiguous()
    if (ih, iw) == (oh, ow):
        return x.to(torch.float32, copy=True)

    def horizontal(t):
        h = t.shape[2]
        weights, starts, taps = xtable
        y = torch.empty((n, c, h, ow), device=image.device, dtype=torch.float32)
        if taps <= 32:
            if autotune:
                kernels.horizontal_tuned[
                    lambda m: (triton.cdiv(ow, m["B"]) * triton.cdiv(n * c * h, m["R"]),)
                ](t, y, weights, starts, iw, ow, n * c * h, taps)
                return y
            b, r = (128, 4) if iw <= ow else (64, 4)
            kernels.horizontal[(triton.cdiv(ow, b) * triton.cdiv(n * c * h, r),)](
                t, y, weights, starts, iw, ow, n * c * h, taps, b, r, num_warps=4
            )
        else:
            if autotune:
                kernels.horizontal_wide_tuned[lambda m: (triton.cdiv(y.numel(), m["B"]),)](
                    t, y, weights, starts, iw, ow, y.numel(), taps
                )
                return y
            b, k = (8, 128) if taps > 256 else (16, 32 if taps <= 64 else 64)
            kernels.horizontal_wide[(triton.cdiv(y.numel(), b),)](
                t, y, weights, starts, iw, ow, y.numel(), taps, b, k, num_warps=4
            )
        return y

    def vertical(t):
        w = t.shape[3]
        if w == 1:
            # Singleton width makes the vertical axis contiguous in memory.
            # Reuse the horizontal reduction instead of launching mostly idle columns.
            return _execute(t.transpose(2, 3), (1, oh), ytable, None, autotune=autotune).transpose(
                2, 3
            )
        weights, starts, taps = ytable
        y = torch.empty((n, c, oh, w), device=image.device, dtype=torch.float32)
        if taps <= 32:
            if autotune:
                kernels.vertical_tuned[lambda m: (triton.cdiv(w, m["B"]) * oh * n * c,)](
                    t, y, weights, starts, ih, oh, w, taps
                )
                return y
            b = min(1024 if ih <= oh else 512, triton.next_power_of_2(w))
            kernels.vertical[(triton.cdiv(w, b) * oh * n * c,)](
                t, y, weights, starts, ih, oh, w, taps, b, num_warps=4
            )
        else:
            if autotune:
                kernels.vertical_wide_tuned[lambda m: (triton.cdiv(y.numel(), m["B"]),)](
                    t, y, weights, starts, ih, oh, w, y.numel(), taps
                )
                return y
            b, k = (128, 4) if w >= 256 else (32, 8)
            kernels.vertical_wide[(triton.cdiv(y.numel(), b),)](
                t, y, weights, starts, ih, oh, w, y.numel(), taps, b, k, num_warps=4
            )
        return y

    if iw == ow:
        return vertical(x)
    if ih == oh:
        return horizontal(x)
    if ih * ow <= oh * iw:
        return vertical(horizontal(x))
    return horizontal(vertical(x))


def resize(
    image: torch.Tensor, size: tuple[int, int], *, a: int = 3, antialias: bool = True
) -> torch.Tensor:
    """Resize finite NCHW CUDA images to (height, width), returning float32.

    Half-pixel centers, truncated/renormalized boundaries, full antialiased
    support when downsampling. No clipping, approximate prefilter or autograd.
    Use Resizer to amortize weight generation across repeated images.
    """
    _image(image)
    size = _size(size, "size")
    _options(a, antialias)
    _extent(*image.shape[:2], image.shape[-2:], size)
    ih, iw = image.shape[-2:]
    oh, ow = size
    with torch.cuda.device(image.device):
        xtable = _table(iw, ow, a, antialias, image.device) if iw != ow else None
        ytable = _table(ih, oh, a, antialias, image.device) if ih != oh else None
        return _execute(image, size, xtable, ytable)
