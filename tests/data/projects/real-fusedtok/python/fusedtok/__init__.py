"""fusedtok: small fused CUDA kernels for LLM inference.

The Python layer dispatches between three execution paths:

- torch CUDA tensors  -> zero-copy: kernels read/write torch device buffers
                         directly via data_ptr(); no staging, no host sync
                         (results are stream-ordered with other torch ops).
- numpy / torch CPU + ``cuda=True`` -> staged: data is copied to the GPU,
                         the kernel runs, results are copied back.
- numpy / torch CPU (default) -> the C++ CPU reference implementation
                         (ground truth; runs on machines without a GPU).

All functions accept float32 numpy arrays or torch tensors (other dtypes
are converted to float32 with a copy when needed; outputs are float32).
CUDA torch tensors keep their native storage dtype where kernels support
it (bfloat16 everywhere data moves, float16 on attention). Row-wise ops
accept 1-D (one row) or 2-D contiguous arrays.
"""

import numpy as np

try:
    from . import _fusedtok
except ImportError:  # development build tree: _fusedtok lives in build/
    import _fusedtok

_HAS_TORCH = False
try:
    import torch

    _HAS_TORCH = True
except ImportError:  # torch is an optional dependency
    torch = None

__version__ = "2.5.0"

__all__ = [
    "cuda_available",
    "axpy",
    "rmsnorm",
    "layernorm",
    "softmax",
    "rope",
    "swiglu",
    "silu",
    "gelu",
    "gelu_tanh",
    "relu",
    "tanh",
    "sigmoid",
    "add",
    "mul",
    "temperature",
    "repetition_penalty",
    "logit_penalties",
    "logit_penalties_batched",
    "argmax",
    "argmax_batched",
    "topk",
    "topp",
    "sample_topp",
    "sample_topp_batched",
    "sample_topk",
    "sample_topk_batched",
    "sample_minp",
    "sample_minp_batched",
    "sample_topa",
    "sample_topa_batched",
    "sample_nsigma",
    "sample_nsigma_batched",
    "sample_eta",
    "sample_eta_batched",
    "sample_typical",
    "sample_typical_batched",
    "sample_tfs",
    "sample_tfs_batched",
    "sample_xtc",
    "sample_xtc_batched",
    "sample_dry",
    "sample_dry_batched",
    "sample_mirostat",
    "sample_mirostat_batched",
    "quantize_int8",
    "dequantize_int8",
    "qadd_int8",
    "qgemm",
    "qgemm_perchannel",
    "decode_step",
    "decode_step_batched",
    "attention_decode",
    "kv_append",
    "attention_decode_paged",
    "attention_prefill",
    "kv_append_paged",
]


def cuda_available():
    """Return True if a usable CUDA device is present."""
    return _fusedtok.cuda_available()


# ---------------------------------------------------------------------------
# internal dispatch helpers
# ---------------------------------------------------------------------------


def _is_torch(x):
    return _HAS_TORCH and torch.is_tensor(x)


def _torch_to_numpy(t, name):
    """CPU torch tensor -> float32 C-contiguous numpy array (zero-copy when
    the tensor already is float32/contiguous)."""
    if t.is_cuda:
        raise TypeError(
            f"{name} is a CUDA tensor while another input is host-side; "
            "move all inputs to the same device (CUDA tensors select the "
            "zero-copy path automatically, host inputs the CPU reference)"
        )
    if t.dtype is not torch.float32:
        t = t.to(torch.float32)
    if not t.is_contiguous():
        t = t.contiguous()
    return t.detach().numpy()


def _numpy_to_torch_like(arr):
    """Fresh numpy array -> torch tensor sharing its memory."""
    return torch.from_numpy(arr)


def _require_cuda(t, name):
    """Device-family guard for secondary operands: once the primary input
    picked the zero-copy path, every tensor operand must live on the same
    GPU (a host copy would silently diverge from the kernel's view)."""
    if not (_is_torch(t) and t.is_cuda):
        raise TypeError(f"{name} must be a CUDA tensor when the primary "
                        "input is on CUDA")


def _check_contiguous(t, name):
    if not t.is_contiguous():
        raise ValueError(f"{name} must be contiguous")


def _check_torch_f32(t, name):
    # the zero-copy helpers only ever run on the torch-cuda path, where
    # EVERY tensor operand must live on the GPU - a host pointer handed
    # to a kernel is an asynchronous illegal access that poisons the
    # CUDA context for every later call, so reject it here
    if not t.is_cuda:
        raise TypeError(f"{name} must be a CUDA tensor (got a CPU tensor "
                        "on the zero-copy path)")
    if t.dtype is not torch.float32:
        raise TypeError(f"{name} must be float32, got {t.dtype} "
                        "(convert with .to(torch.float32))")
    _check_contiguous(t, name)


def _check_torch_float(t, name):
    """Accept float32 or bfloat16 (the two dtypes with CUDA kernels)."""
    if not t.is_cuda:
        raise TypeError(f"{name} must be a CUDA tensor (got a CPU tensor "
                        "on the zero-copy path)")
    if t.dtype not in (torch.float32, torch.bfloat16):
        raise TypeError(f"{name} must be float32 or bfloat16, got {t.dtype} "
                        "(convert with .to(torch.float32))")
    _check_contiguous(t, name)


def _check_torch_att(t, name):
    """Accept the three attention storage dtypes: float32, bfloat16,
    float16 (attention kernels are templated on the storage dtype and
    compute in float32)."""
    if not t.is_cuda:
        raise TypeError(f"{name} must be a CUDA tensor (got a CPU tensor "
                        "on the zero-copy path)")
    if t.dtype not in (torch.float32, torch.bfloat16, torch.float16):
        raise TypeError(f"{name} must be float32, bfloat16 or float16, "
                        f"got {t.dtype} (convert with .to(torch.float32))")
    _check_contiguous(t, name)


def _launch_for_dtype(dtype, base, fp16=False):
    """Bindings entry point for a storage dtype. Suffix convention:
    ``base`` = float32 kernel, ``base + '_bf16'`` / ``base + '_fp16'``
    = the half-precision instantiations (fp16 exists for attention
    only)."""
    if dtype is torch.bfloat16:
        return getattr(_fusedtok, base + "_bf16")
    if fp16 and dtype is torch.float16:
        return getattr(_fusedtok, base + "_fp16")
    return getattr(_fusedtok, base)


def _att_launch_fn(t, base):
    """The attention launcher for t's storage dtype."""
    return _launch_for_dtype(t.dtype, base, fp16=True)


def _norm_weight_f32(weight):
    """Norm weights must reach the kernel as float32 (they commonly are in
    checkpoints, and the bf16 kernels read them as float). Small [cols]
    upcast copy when the caller hands us bf16."""
    if weight.dtype is torch.float32:
        return weight
    return weight.to(torch.float32)


def _cuda_stream():
    """Current torch CUDA stream handle (0 = legacy default stream).

    Passing the live stream keeps the zero-copy launchers ordered with
    surrounding torch work and makes them CUDA-graph capturable.
    """
    return torch.cuda.current_stream().cuda_stream


def _host_int_array(t, name="values"):
    """Host-origin value (list / numpy / CPU tensor) -> int numpy array,
    or None when t is a device-resident tensor. Non-integral host input
    is rejected: a silent float->int truncation would corrupt the
    position/table semantics. Empty arrays pass with any dtype
    (np.asarray([]) yields float64)."""
    if _is_torch(t):
        if t.is_cuda:
            return None
        host = t.detach().cpu().numpy()
    else:
        host = np.asarray(t)
    if host.size and not np.issubdtype(host.dtype, np.integer):
        raise TypeError(f"{name} must hold integer values "
                        f"(got dtype {host.dtype})")
    return host


def _i32_cuda_arg(t, device):
    """Coerce a host-side value / torch tensor to a contiguous int32 CUDA
    tensor (lens, block tables). Device-resident tensors pass through
    with at most a device-side dtype/contiguity fixup - their VALUES are
    never read back: a readback would sync the stream (breaking the
    zero-copy contract and CUDA-graph capture), the same trust boundary
    as a raw pointer. Host-origin values ARE validated by the callers
    (via _host_int_array) before the upload."""
    host = _host_int_array(t)
    if host is not None:
        return torch.from_numpy(
            np.ascontiguousarray(host, dtype=np.int32)).to(device)
    tt = t
    if tt.dtype is not torch.int32:
        tt = tt.to(torch.int32)
    if not tt.is_contiguous():
        tt = tt.contiguous()
    return tt


def _host_lens_checked(lens, batch, limit, upper_inclusive=True):
    """Validated host-origin lens values as a C-contiguous int32 array:
    1-D with batch entries, values in [0, limit] (or [0, limit) when the
    caller marks the upper bound exclusive - kv_append writes AT
    lens[b], so lens[b] itself must be a mapped position). Shared by the
    zero-copy (_lens_arg) and staged-upload paths; device-resident lens
    tensors return None (they stay trusted - no value readback)."""
    host = _host_int_array(lens, "lens")
    if host is None:
        return None
    host = np.ascontiguousarray(host, dtype=np.int32)
    if host.ndim != 1 or host.shape[0] != batch:
        raise ValueError("lens must be 1-D with batch entries")
    bracket = "]" if upper_inclusive else ")"
    if host.size and (host.min() < 0 or host.max() > limit
                      or (not upper_inclusive and host.max() == limit)):
        raise ValueError(f"lens entries must be in [0, {limit}{bracket}")
    return host


def _lens_arg(lens, batch, limit, device, upper_inclusive=True):
    """Validated lens tensor for the attention kernels: 1-D int32 with
    batch entries, values in [0, limit] (or [0, limit) when the caller
    marks the upper bound exclusive - kv_append writes AT lens[b], so
    lens[b] itself must be a mapped position). Device-resident lens
    tensors are trusted; host-origin values are checked before upload."""
    host = _host_lens_checked(lens, batch, limit, upper_inclusive)
    if host is not None:
        return torch.from_numpy(host).to(device)
    lt = _i32_cuda_arg(lens, device)
    if lt.ndim != 1 or lt.numel() != batch:
        raise ValueError("lens must be 1-D with batch entries")
    return lt


def _host_table_checked(table, batch, nblocks):
    """Validated host-origin block-table values as a C-contiguous int32
    array: [B, S] with batch rows, values in [0, nblocks). Shared by the
    zero-copy (_table_arg) and staged-upload paths; device-resident
    tables return None (trusted, no readback)."""
    host = _host_int_array(table, "block_table")
    if host is None:
        return None
    host = np.ascontiguousarray(host, dtype=np.int32)
    if host.ndim != 2 or host.shape[0] != batch:
        raise ValueError("block_table must be [B, S] with batch rows")
    if host.size and (host.min() < 0 or host.max() >= nblocks):
        raise ValueError(f"block_table entries must be in [0, {nblocks})")
    return host


def _table_arg(table, batch, nblocks, device):
    """Validated block_table tensor: [B, S] int32, host-origin values in
    [0, nblocks). Device-resident tables are trusted (see _i32_cuda_arg
    for the trust boundary)."""
    host = _host_table_checked(table, batch, nblocks)
    if host is not None:
        return torch.from_numpy(host).to(device)
    bt = _i32_cuda_arg(table, device)
    if bt.ndim != 2 or bt.shape[0] != batch:
        raise ValueError("block_table must be [B, S] with batch rows")
    return bt


def _ids_arg(ids, vocab, device, name):
    """Coerced token-id tensor for the penalty kernels: 1-D int64 on
    `device`. Host-origin values are validated against [0, vocab) before
    the upload; a device-resident tensor is trusted (no stream sync -
    same boundary as _i32_cuda_arg)."""
    if _is_torch(ids) and ids.is_cuda:
        it = ids
        if it.dtype is not torch.int64:
            it = it.to(torch.int64)
        if not it.is_contiguous():
            it = it.contiguous()
        if it.ndim != 1:
            raise ValueError(f"{name} must be 1-D")
        return it
    # host input: reject non-integral dtypes (a silent float->int64
    # truncation would shift ids) and non-1-D shapes (no silent ravel)
    host = np.ascontiguousarray(_host_int_array(ids, name), dtype=np.int64)
    if host.ndim != 1:
        raise ValueError(f"{name} must be 1-D")
    if host.size and (host.min() < 0 or host.max() >= vocab):
        raise ValueError(f"{name} values must be in [0, {vocab})")
    return torch.from_numpy(host).to(device)


def _as_numpy(x, name):
    """Anything -> float32 C-contiguous numpy array (copy only if needed)."""
    if isinstance(x, np.ndarray):
        if x.dtype != np.float32:
            x = x.astype(np.float32)
        if not x.flags["C_CONTIGUOUS"]:
            x = np.ascontiguousarray(x)
        return x
    if _is_torch(x):
        return _torch_to_numpy(x, name)
    return np.ascontiguousarray(np.asarray(x, dtype=np.float32))


def _device_path(x, cuda):
    """Decide the execution path for input x.

    Returns one of: 'torch-cuda' (zero-copy GPU), 'staged' (GPU with
    host staging), 'cpu'.
    """
    if _is_torch(x) and x.is_cuda:
        return "torch-cuda"
    return "staged" if cuda else "cpu"


def _batch_seeds(seeds, rows, name):
    """Batched-sampling seed normalization: ``None`` becomes
    ``0..rows-1`` (the serving default - distinct streams per row);
    anything else must be a 1-D integral host array with exactly one
    entry per row. Values are consumed as unsigned 64-bit patterns,
    so the accepted range is ``[0, 2**63)`` (a uint64 above 2**63 - 1
    would wrap negative in the int64 staging array and is rejected
    after the cast, not silently accepted)."""
    if seeds is None:
        return np.arange(rows, dtype=np.int64)
    if _is_torch(seeds):
        if seeds.is_cuda:
            seeds = seeds.cpu()
        seeds = seeds.detach().numpy()
    arr = np.asarray(seeds)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"{name} must contain integers")
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D")
    if arr.shape[0] != rows:
        raise ValueError(f"{name} must have one entry per row")
    out = np.ascontiguousarray(arr, dtype=np.int64)
    # AFTER the cast: uint64 inputs above 2**63 - 1 wrap negative here
    if out.size and out.min() < 0:
        raise ValueError(f"{name} values must be in [0, 2**63)")
    return out


# ---------------------------------------------------------------------------
# elementwise unary
# ---------------------------------------------------------------------------


def _unary(x, cuda, name):
    """Unary elementwise op dispatch: `name` selects the staged/cpu
    bindings and the launcher family (`name`/`name + '_cpu'`/
    `name + '_launch'[_bf16]`)."""
    path = _device_path(x, cuda)
    if path == "torch-cuda":
        _check_torch_float(x, "x")
        out = torch.empty_like(x)
        _launch_for_dtype(x.dtype, name + "_launch")(
            x.data_ptr(), out.data_ptr(), x.numel(), _cuda_stream())
        return out
    arr = _as_numpy(x, "x")
    if path == "staged":
        res = getattr(_fusedtok, name)(arr)
    else:
        res = getattr(_fusedtok, name + "_cpu")(arr)
    return _numpy_to_torch_like(res) if _is_torch(x) else res


def silu(x, *, cuda=False):
    """SiLU / Swish activation: ``v * sigmoid(v)``."""
    return _unary(x, cuda, "silu")


def gelu(x, *, cuda=False):
    """GeLU activation, exact erf form: ``0.5 v (1 + erf(v / sqrt(2)))``."""
    return _unary(x, cuda, "gelu")


def gelu_tanh(x, *, cuda=False):
    """GeLU activation, tanh approximation (BERT/GPT checkpoint variant)."""
    return _unary(x, cuda, "gelu_tanh")


def relu(x, *, cuda=False):
    """ReLU activation: ``max(v, 0)``."""
    return _unary(x, cuda, "relu")


def tanh(x, *, cuda=False):
    """Hyperbolic tangent activation."""
    return _unary(x, cuda, "tanh")


def sigmoid(x, *, cuda=False):
    """Logistic sigmoid: ``1 / (1 + exp(-v))``."""
    return _unary(x, cuda, "sigmoid")


def temperature(x, t, *, cuda=False):
    """Logit temperature scaling: ``x / t`` with ``t > 0``.

    ``t < 1`` sharpens the distribution, ``t > 1`` flattens it. The CUDA
    path is float32-only (logits are float32 by convention).
    """
    if not t > 0.0:
        raise ValueError("temperature must be > 0")
    path = _device_path(x, cuda)
    if path == "torch-cuda":
        _check_torch_f32(x, "x")
        out = torch.empty_like(x)
        _fusedtok.temperature_launch(x.data_ptr(), out.data_ptr(),
                                     x.numel(), t, _cuda_stream())
        return out
    arr = _as_numpy(x, "x")
    if path == "staged":
        res = _fusedtok.temperature(arr, t)
    else:
        res = _fusedtok.temperature_cpu(arr, t)
    return _numpy_to_torch_like(res) if _is_torch(x) else res


def axpy(x, a=1.0, b=0.0, *, cuda=False):
    """Skeleton demo op: ``y = a * x + b`` elementwise (float32 CUDA
    path)."""
    path = _device_path(x, cuda)
    if path == "torch-cuda":
        _check_torch_f32(x, "x")
        out = torch.empty_like(x)
        _fusedtok.axpy_launch(x.data_ptr(), out.data_ptr(),
                              x.numel(), a, b, _cuda_stream())
        return out
    arr = _as_numpy(x, "x")
    if path == "staged":
        res = _fusedtok.axpy(arr, a, b)
    else:
        res = _fusedtok.axpy_cpu(arr, a, b)
    return _numpy_to_torch_like(res) if _is_torch(x) else res


# ---------------------------------------------------------------------------
# elementwise binary
# ---------------------------------------------------------------------------


def _binary(a, b, cuda, name):
    """Binary elementwise op dispatch (same naming convention as _unary).
    The operand names keep validation errors honest about WHICH input
    failed."""
    name_a, name_b = ("gate", "up") if name == "swiglu" else ("a", "b")
    if _is_torch(a) and a.is_cuda:
        _require_cuda(b, name_b)
        _check_torch_float(a, name_a)
        _check_torch_float(b, name_b)
        if a.dtype is not b.dtype:
            raise TypeError("inputs must have the same dtype")
        if a.shape != b.shape:
            raise ValueError("inputs must have the same shape")
        out = torch.empty_like(a)
        _launch_for_dtype(a.dtype, name + "_launch")(
            a.data_ptr(), b.data_ptr(), out.data_ptr(), a.numel(),
            _cuda_stream())
        return out
    arr_a = _as_numpy(a, name_a)
    arr_b = _as_numpy(b, name_b)
    if arr_a.shape != arr_b.shape:
        raise ValueError("inputs must have the same shape")
    if cuda:
        res = getattr(_fusedtok, name)(arr_a, arr_b)
    else:
        res = getattr(_fusedtok, name + "_cpu")(arr_a, arr_b)
    return _numpy_to_torch_like(res) if _is_torch(a) else res


def add(a, b, *, cuda=False):
    """Elementwise ``a + b`` (the fused add + residual pattern)."""
    return _binary(a, b, cuda, "add")


def mul(a, b, *, cuda=False):
    """Elementwise ``a * b``."""
    return _binary(a, b, cuda, "mul")


def swiglu(gate, up, *, cuda=False):
    """SwiGLU activation: ``silu(gate) * up``."""
    return _binary(gate, up, cuda, "swiglu")


# ---------------------------------------------------------------------------
# row-wise normalization / softmax
# ---------------------------------------------------------------------------


def _shape_rows_cols(t):
    if t.ndim == 1:
        return 1, t.shape[0]
    if t.ndim == 2:
        return t.shape[0], t.shape[1]
    raise ValueError("expected a 1-D or 2-D tensor")


def rmsnorm(x, weight, *, residual=None, eps=1e-6, cuda=False):
    """RMSNorm (LLaMA/Qwen style), optionally fused with a residual add:

    ``y = (x + r) * rsqrt(mean((x + r)^2) + eps) * weight``

    x: [rows, cols] (or 1-D [cols]), weight: [cols], residual: same shape as x.
    """
    path = _device_path(x, cuda)
    if path == "torch-cuda":
        _check_torch_float(x, "x")
        _require_cuda(weight, "weight")
        weight = _norm_weight_f32(weight)
        r_ptr = None
        if residual is not None:
            _require_cuda(residual, "residual")
            _check_torch_float(residual, "residual")
            if residual.dtype is not x.dtype:
                raise TypeError("residual must have the same dtype as x")
            if residual.shape != x.shape:
                raise ValueError("residual must have the same shape as x")
            r_ptr = residual.data_ptr()
        rows, cols = _shape_rows_cols(x)
        out = torch.empty_like(x)
        _launch_for_dtype(x.dtype, "rmsnorm_launch")(
            x.data_ptr(), weight.data_ptr(), r_ptr, out.data_ptr(),
            rows, cols, eps, _cuda_stream())
        return out
    arr_x = _as_numpy(x, "x")
    args = (arr_x, _as_numpy(weight, "weight"),
            None if residual is None else _as_numpy(residual, "residual"),
            eps)
    if path == "staged":
        res = _fusedtok.rmsnorm(*args)
    else:
        res = _fusedtok.rmsnorm_cpu(*args)
    return _numpy_to_torch_like(res) if _is_torch(x) else res


def layernorm(x, weight, bias, *, eps=1e-6, cuda=False):
    """LayerNorm with affine transform:

    ``y = (x - mean) / sqrt(var + eps) * weight + bias``

    x: [rows, cols] (or 1-D [cols]), weight/bias: [cols].
    """
    path = _device_path(x, cuda)
    if path == "torch-cuda":
        _check_torch_float(x, "x")
        for name, tv in (("weight", weight), ("bias", bias)):
            _require_cuda(tv, name)
        weight = _norm_weight_f32(weight)
        bias = _norm_weight_f32(bias)
        rows, cols = _shape_rows_cols(x)
        out = torch.empty_like(x)
        _launch_for_dtype(x.dtype, "layernorm_launch")(
            x.data_ptr(), weight.data_ptr(), bias.data_ptr(),
            out.data_ptr(), rows, cols, eps, _cuda_stream())
        return out
    arr_x = _as_numpy(x, "x")
    args = (arr_x, _as_numpy(weight, "weight"), _as_numpy(bias, "bias"), eps)
    if path == "staged":
        res = _fusedtok.layernorm(*args)
    else:
        res = _fusedtok.layernorm_cpu(*args)
    return _numpy_to_torch_like(res) if _is_torch(x) else res


def softmax(x, *, cuda=False):
    """Row-wise numerically stable softmax over the last dimension."""
    path = _device_path(x, cuda)
    if path == "torch-cuda":
        _check_torch_float(x, "x")
        rows, cols = _shape_rows_cols(x)
        out = torch.empty_like(x)
        _launch_for_dtype(x.dtype, "softmax_launch")(
            x.data_ptr(), out.data_ptr(), rows, cols, _cuda_stream())
        return out
    arr_x = _as_numpy(x, "x")
    if path == "staged":
        res = _fusedtok.softmax(arr_x)
    else:
        res = _fusedtok.softmax_cpu(arr_x)
    return _numpy_to_torch_like(res) if _is_torch(x) else res


# ---------------------------------------------------------------------------
# RoPE
# ---------------------------------------------------------------------------


def rope(q, k=None, *, theta=10000.0, pos_offset=0, neox=False, cuda=False):
    """Rotary position embedding on (q, k).

    q, k: [seq, dim] with even dim. Two pair layouts:

    - ``neox=False``: interleaved pairs (2j, 2j+1) - original RoFormer form
    - ``neox=True``: rotate_half layout across the row halves
      (GPT-NeoX / LLaMA-HF checkpoints)

    ``pos_offset`` gives the absolute position of row 0, for kv-cache
    decoding where new tokens continue an existing sequence.
    Returns ``(q_rotated, k_rotated)``; the second element is None if k is.
    """
    path = _device_path(q, cuda)
    if path == "torch-cuda":
        _check_torch_float(q, "q")
        if q.ndim != 2:
            raise ValueError("q must be 2-D [seq, dim]")
        seq, dim = q.shape
        if dim % 2:
            raise ValueError("dim must be even (RoPE pairs elements)")
        if pos_offset < 0:
            raise ValueError("pos_offset must be >= 0")
        q_out = torch.empty_like(q)
        k_out = None
        if k is not None:
            _require_cuda(k, "k")
            _check_torch_float(k, "k")
            if k.dtype is not q.dtype:
                raise TypeError("k must have the same dtype as q")
            if k.shape != q.shape:
                raise ValueError("k must have the same shape as q")
            k_out = torch.empty_like(k)
        # float32 ships one bool-dispatch binding; bf16 has per-layout
        # kernels (the suffix convention cannot express the bool flag)
        if q.dtype is torch.bfloat16:
            def _rot(src, dst):
                launch = (_fusedtok.rope_neox_launch_bf16 if neox
                          else _fusedtok.rope_launch_bf16)
                launch(src, dst, seq, dim, theta, pos_offset,
                       _cuda_stream())
        else:
            def _rot(src, dst):
                _fusedtok.rope_launch(neox, src, dst, seq, dim, theta,
                                      pos_offset, _cuda_stream())
        _rot(q.data_ptr(), q_out.data_ptr())
        if k_out is not None:
            _rot(k.data_ptr(), k_out.data_ptr())
        return q_out, k_out
    arr_q = _as_numpy(q, "q")
    arr_k = None if k is None else _as_numpy(k, "k")
    call = _fusedtok.rope if path == "staged" else _fusedtok.rope_cpu
    q_res, k_res = call(neox, arr_q, arr_k, theta, pos_offset)
    if _is_torch(q):
        q_res = _numpy_to_torch_like(q_res)
        if k_res is not None:
            k_res = _numpy_to_torch_like(k_res)
    return q_res, k_res


# ---------------------------------------------------------------------------
# attention (decode step)
# ---------------------------------------------------------------------------


def attention_decode(q, k_cache, v_cache, lens=None, *, cuda=False):
    """Single-token (decode step) causal attention with GQA:

    ``out[b, h] = softmax(q[b,h] . K[b,kv(h)]^T / sqrt(D)) . V[b,kv(h)]``

    q: [B, Hq, D] (the new token's queries); k_cache / v_cache:
    [B, Hkv, T, D] contiguous kv-cache; optional lens: [B] ints giving
    each sequence's valid cache length (<= T; None = all rows valid, so
    rows past lens[b] are treated as padding and variable-length batches
    share one cache tensor). q head h attends with kv head
    ``h // (Hq // Hkv)`` - contiguous GQA groups; ``Hq == Hkv`` is plain
    MHA. Sequences with length 0 produce zero output rows.

    CUDA tensors may be float32, bfloat16 or float16 - output matches
    the input dtype and every accumulator stays float32, so the
    half-precision paths halve the kv-cache bytes (the decode-step
    bottleneck) without changing the softmax numerics. Non-CUDA inputs
    run the float32 CPU reference (numpy has no bf16/fp16).

    ``lens`` values are validated for host-side inputs (lists, numpy,
    CPU tensors) before the upload; a CUDA lens tensor is trusted as-is
    - reading it back would sync the stream and break CUDA-graph
    capture (the same trust boundary as raw device pointers).
    """
    path = _device_path(q, cuda)
    if path == "torch-cuda":
        for name, t in (("q", q), ("k_cache", k_cache), ("v_cache", v_cache)):
            _check_torch_att(t, name)
        for name, t in (("k_cache", k_cache), ("v_cache", v_cache)):
            if t.dtype is not q.dtype:
                raise TypeError(f"{name} must have the same dtype as q")
        if q.ndim != 3 or k_cache.ndim != 4 or v_cache.ndim != 4:
            raise ValueError("q must be [B, Hq, D]; k/v caches [B, Hkv, T, D]")
        b, hq, d = q.shape
        b2, hkv, t_rows, d2 = k_cache.shape
        if (b2, d2) != (b, d) or v_cache.shape != k_cache.shape:
            raise ValueError("k_cache/v_cache must match q's batch and dim")
        if hq < 1 or hkv < 1:
            # the C++ attention_check rejects these on the CPU path;
            # keep both paths on the same contract (a zero head count
            # would otherwise return an empty tensor here)
            raise ValueError("head counts must be >= 1")
        if hq % hkv:
            raise ValueError("q heads must be a multiple of kv heads")
        lens_ptr = None
        if lens is not None:
            lt = _lens_arg(lens, b, t_rows, q.device)
            lens_ptr = lt.data_ptr()
        out = torch.empty((b, hq, d), dtype=q.dtype, device=q.device)
        if b * hq > 0:
            _att_launch_fn(q, "attention_decode_launch")(
                q.data_ptr(), k_cache.data_ptr(), v_cache.data_ptr(),
                lens_ptr, out.data_ptr(), b, hq, hkv, t_rows, d,
                _cuda_stream())
        return out
    arr_q = _as_numpy(q, "q")
    arr_k = _as_numpy(k_cache, "k_cache")
    arr_v = _as_numpy(v_cache, "v_cache")
    if arr_q.ndim != 3 or arr_k.ndim != 4 or arr_v.ndim != 4:
        raise ValueError("q must be [B, Hq, D]; k/v caches [B, Hkv, T, D]")
    b, hq, d = arr_q.shape
    b2, hkv, t_rows, d2 = arr_k.shape
    if (b2, d2) != (b, d) or arr_v.shape != arr_k.shape:
        raise ValueError("k_cache/v_cache must match q's batch and dim")
    if hq % hkv:
        raise ValueError("q heads must be a multiple of kv heads")
    # staged upload: host lens values are validated here so a bad entry
    # cannot become a silent GPU out-of-bounds read (device tensors
    # cannot appear - the path is host-origin by construction)
    if lens is None:
        arr_lens = None
    else:
        arr_lens = _host_lens_checked(lens, b, t_rows)
        if arr_lens is None:
            raise TypeError("lens must be a host array on this path")
    call = (_fusedtok.attention_decode if path == "staged"
            else _fusedtok.attention_decode_cpu)
    res = call(arr_q, arr_k, arr_v, arr_lens, b, hq, hkv, t_rows, d)
    return _numpy_to_torch_like(res) if _is_torch(q) else res


def attention_prefill(q, k, v, causal=True, *, cuda=False):
    """Prefill (fresh-sequence) attention over S query rows:

    ``out[b, h, i] = softmax(q . K^T / sqrt(D)) . V`` where query row i
    attends to key rows ``[0, i]`` (``causal=True``, the prefill
    diagonal) or all S rows (``causal=False``, bidirectional / encoder
    style).

    q: [B, Hq, S, D]; k / v: [B, Hkv, S, D]; out: [B, Hq, S, D]. Same
    contiguous-group GQA mapping as :func:`attention_decode` (Hq must be
    a multiple of Hkv). dim: multiple of 4, at most 512.

    CUDA tensors may be float32, bfloat16 or float16 - output matches
    the input dtype and every accumulator stays float32 (this is the
    convenience path: half precision halves the IO bytes, the heavy
    prefill still belongs to SDPA/FlashAttention). Non-CUDA inputs run
    the float32 CPU reference.
    """
    path = _device_path(q, cuda)
    if path == "torch-cuda":
        for name, t in (("q", q), ("k", k), ("v", v)):
            _check_torch_att(t, name)
        for name, t in (("k", k), ("v", v)):
            if t.dtype is not q.dtype:
                raise TypeError(f"{name} must have the same dtype as q")
        if q.ndim != 4 or k.ndim != 4 or v.ndim != 4:
            raise ValueError("q/k/v must be [B, heads, S, D]")
        b, hq, s, d = q.shape
        b2, hkv, s2, d2 = k.shape
        if (b2, s2, d2) != (b, s, d) or v.shape != k.shape:
            raise ValueError("k/v must match q's batch, seq and dim")
        if hq < 1 or hkv < 1:
            raise ValueError("head counts must be >= 1")
        if hq % hkv:
            raise ValueError("q heads must be a multiple of kv heads")
        out = torch.empty((b, hq, s, d), dtype=q.dtype, device=q.device)
        if b * hq * s > 0:
            _att_launch_fn(q, "attention_prefill_launch")(
                q.data_ptr(), k.data_ptr(), v.data_ptr(), out.data_ptr(),
                b, hq, hkv, s, d, bool(causal), _cuda_stream())
        return out
    arr_q = _as_numpy(q, "q")
    arr_k = _as_numpy(k, "k")
    arr_v = _as_numpy(v, "v")
    if arr_q.ndim != 4 or arr_k.ndim != 4 or arr_v.ndim != 4:
        raise ValueError("q/k/v must be [B, heads, S, D]")
    b, hq, s, d = arr_q.shape
    b2, hkv, s2, d2 = arr_k.shape
    if (b2, s2, d2) != (b, s, d) or arr_v.shape != arr_k.shape:
        raise ValueError("k/v must match q's batch, seq and dim")
    if hq % hkv:
        raise ValueError("q heads must be a multiple of kv heads")
    call = (_fusedtok.attention_prefill if path == "staged"
            else _fusedtok.attention_prefill_cpu)
    res = call(arr_q, arr_k, arr_v, b, hq, hkv, s, d, bool(causal))
    return _numpy_to_torch_like(res) if _is_torch(q) else res


def attention_decode_paged(q, k_pool, v_pool, block_table, lens=None,
                           *, cuda=False):
    """Single-token causal attention with GQA over a PAGED kv-cache:

    ``out[b, h] = softmax(q[b,h] . K[b,kv(h)]^T / sqrt(D)) . V[b,kv(h)]``

    The cache is a pool of fixed-size token blocks (the vLLM-style layout
    that keeps fragmentation out of the cache): k_pool / v_pool are
    [Nb, Hkv, P, D] (P = tokens per block, derived from the pool shape),
    and block_table [B, S] maps sequence b's token t to pool block
    ``block_table[b, t // P]``, offset ``t % P``. Optional lens: [B] ints
    with each sequence's valid length (None = every sequence uses its
    full table width, S * P rows).

    Same GQA mapping, zero-row-for-length-0 convention and dim limits as
    :func:`attention_decode`. The paged path supports GQA group sizes
    1/2/4/8/16 (other divisors: use the contiguous op). CUDA tensors may
    be float32, bfloat16 or float16 (output matches the input dtype,
    accumulators stay float32). Block-table VALUES are validated on the
    CPU/staged paths (ValueError) and trusted on the zero-copy path - a
    device table is not host-readable without a sync, the same trust
    boundary as raw pointers. CUDA-graph capture requires warming the
    shape up once outside the capture (the split workspace must
    pre-exist).
    """
    path = _device_path(q, cuda)
    if path == "torch-cuda":
        for name, t in (("q", q), ("k_pool", k_pool), ("v_pool", v_pool)):
            _check_torch_att(t, name)
        for name, t in (("k_pool", k_pool), ("v_pool", v_pool)):
            if t.dtype is not q.dtype:
                raise TypeError(f"{name} must have the same dtype as q")
        if q.ndim != 3 or k_pool.ndim != 4 or v_pool.ndim != 4:
            raise ValueError("q must be [B, Hq, D]; pools [Nb, Hkv, P, D]")
        b, hq, d = q.shape
        nb, hkv, page, d2 = k_pool.shape
        if d2 != d or v_pool.shape != k_pool.shape:
            raise ValueError("pools must match q's dim and each other")
        if hq < 1 or hkv < 1:
            raise ValueError("head counts must be >= 1")
        if hq % hkv:
            raise ValueError("q heads must be a multiple of kv heads")
        if hq // hkv not in (1, 2, 4, 8, 16):
            raise ValueError("paged decode supports GQA group sizes "
                             "1/2/4/8/16 (use attention_decode otherwise)")
        bt = _table_arg(block_table, b, nb, q.device)
        s_width = bt.shape[1]
        lens_ptr = None
        if lens is not None:
            lt = _lens_arg(lens, b, s_width * page, q.device)
            lens_ptr = lt.data_ptr()
        out = torch.empty((b, hq, d), dtype=q.dtype, device=q.device)
        if b * hq > 0:
            _att_launch_fn(q, "attention_decode_paged_launch")(
                q.data_ptr(), k_pool.data_ptr(), v_pool.data_ptr(),
                bt.data_ptr(), lens_ptr, out.data_ptr(),
                b, hq, hkv, page, s_width, d, _cuda_stream())
        return out
    arr_q = _as_numpy(q, "q")
    arr_k = _as_numpy(k_pool, "k_pool")
    arr_v = _as_numpy(v_pool, "v_pool")
    if arr_q.ndim != 3 or arr_k.ndim != 4 or arr_v.ndim != 4:
        raise ValueError("q must be [B, Hq, D]; pools [Nb, Hkv, P, D]; "
                         "block_table [B, S]")
    b, hq, d = arr_q.shape
    nb, hkv, page, d2 = arr_k.shape
    # staged upload: host table/lens values validated here (same rule as
    # the zero-copy path - a bad block id cannot reach the kernel)
    arr_t = _host_table_checked(block_table, b, nb)
    if arr_t is None:
        raise TypeError("block_table must be a host array on this path")
    if d2 != d or arr_v.shape != arr_k.shape:
        raise ValueError("pools must match q's dim and each other")
    if hq % hkv:
        raise ValueError("q heads must be a multiple of kv heads")
    if hq // hkv not in (1, 2, 4, 8, 16):
        raise ValueError("paged decode supports GQA group sizes "
                         "1/2/4/8/16 (use attention_decode otherwise)")
    if arr_t.shape[0] != b:
        raise ValueError("block_table must have one row per sequence")
    if lens is None:
        arr_lens = None
    else:
        arr_lens = _host_lens_checked(lens, b, arr_t.shape[1] * page)
        if arr_lens is None:
            raise TypeError("lens must be a host array on this path")
    call = (_fusedtok.attention_decode_paged
            if path == "staged"
            else _fusedtok.attention_decode_paged_cpu)
    res = call(arr_q, arr_k, arr_v, arr_t, arr_lens, b, hq, hkv, page,
               arr_t.shape[1], nb, d)
    return _numpy_to_torch_like(res) if _is_torch(q) else res


def kv_append_paged(k_pool, v_pool, block_table, k_new, v_new, lens,
                    *, cuda=False):
    """Append ONE fresh token's k/v rows per sequence into the paged
    kv-cache (in place - the write side of the paged decode loop):

    sequence b's new rows ``k_new[b]``/``v_new[b]`` (each [Hkv, D]) land
    at pool block ``block_table[b, lens[b] // P]``, offset ``lens[b] % P``.

    k_pool / v_pool: [Nb, Hkv, P, D]; k_new / v_new: [B, Hkv, D]; lens
    [B] (REQUIRED - the write position is each sequence's current
    length). The block table itself is owned by the scheduler: this
    writes data into already-mapped blocks and never touches table
    entries (a position in an unmapped block is invalid input).

    CUDA pools may be float32, bfloat16 or float16 (rows copied in the
    storage dtype; k_new must match the pool dtype). Host-origin
    table/lens values are validated before the upload; device-resident
    tensors are trusted (same trust boundary as
    attention_decode_paged). Returns None; the pools are mutated in
    place.
    """
    path = _device_path(k_pool, cuda)
    if path == "torch-cuda":
        for name, t in (("k_pool", k_pool), ("v_pool", v_pool),
                        ("k_new", k_new), ("v_new", v_new)):
            _check_torch_att(t, name)
        for name, t in (("v_pool", v_pool), ("k_new", k_new),
                        ("v_new", v_new)):
            if t.dtype is not k_pool.dtype:
                raise TypeError(f"{name} must have the pool dtype")
        if k_pool.ndim != 4 or v_pool.ndim != 4:
            raise ValueError("pools must be [Nb, Hkv, P, D]")
        if k_new.ndim != 3 or v_new.ndim != 3:
            raise ValueError("k_new/v_new must be [B, Hkv, D]")
        nb, hkv, page, d = k_pool.shape
        b, hkv2, d2 = k_new.shape
        if (hkv2, d2) != (hkv, d) or v_pool.shape != k_pool.shape \
                or v_new.shape != k_new.shape:
            raise ValueError("k/v operands must match the pool layout")
        if b == 0:
            return None
        bt = _table_arg(block_table, b, nb, k_pool.device)
        lt = _lens_arg(lens, b, bt.shape[1] * page, k_pool.device,
                       upper_inclusive=False)
        _att_launch_fn(k_pool, "kv_append_paged_launch")(
            k_new.data_ptr(), v_new.data_ptr(), bt.data_ptr(),
            lt.data_ptr(), k_pool.data_ptr(), v_pool.data_ptr(),
            b, hkv, d, page, bt.shape[1], _cuda_stream())
        return None
    # in-place op: a dtype/layout conversion would silently drop the
    # mutation (numpy would view a converted copy), so pools must
    # already be float32 C-contiguous on the host paths
    for name, arr in (("k_pool", k_pool), ("v_pool", v_pool)):
        raw = arr.numpy() if _is_torch(arr) else arr
        if not isinstance(raw, np.ndarray) or raw.dtype != np.float32 \
                or not raw.flags["C_CONTIGUOUS"]:
            raise TypeError(f"{name} must be a float32 C-contiguous array "
                            "(in-place op; conversion would drop writes)")
    arr_kp = _as_numpy(k_pool, "k_pool")
    arr_vp = _as_numpy(v_pool, "v_pool")
    arr_kn = _as_numpy(k_new, "k_new")
    arr_vn = _as_numpy(v_new, "v_new")
    if arr_kp.ndim != 4 or arr_kn.ndim != 3:
        raise ValueError("pools [Nb,Hkv,P,D]; k_new [B,Hkv,D]")
    nb, hkv, page, d = arr_kp.shape
    b = arr_kn.shape[0]
    if arr_kn.shape != (b, hkv, d) or arr_vp.shape != arr_kp.shape \
            or arr_vn.shape != arr_kn.shape:
        raise ValueError("k/v operands must match the pool layout")
    # staged upload: host table/lens values are validated here so a bad
    # block id or write position cannot become a silent GPU
    # out-of-bounds write (in-place op - the corruption would persist)
    arr_t = _host_table_checked(block_table, b, nb)
    if arr_t is None:
        raise TypeError("block_table must be a host array on this path")
    arr_l = _host_lens_checked(lens, b, arr_t.shape[1] * page,
                               upper_inclusive=False)
    if arr_l is None:
        raise TypeError("lens must be a host array on this path")
    if path == "staged":
        _fusedtok.kv_append_paged(arr_kn, arr_vn, arr_t, arr_l, arr_kp,
                                  arr_vp, b, hkv, d, page, arr_t.shape[1],
                                  nb)
    else:
        _fusedtok.kv_append_paged_cpu(arr_kn, arr_vn, arr_t, arr_l,
                                      arr_kp, arr_vp, b, hkv, d, page,
                                      arr_t.shape[1], nb)
    return None


def kv_append(k_cache, v_cache, k_new, v_new, lens, *, cuda=False):
    """Append ONE fresh token's k/v rows per sequence into the
    contiguous kv-cache (in place - the write side of the decode loop):

    sequence b's new rows ``k_new[b]``/``v_new[b]`` (each [Hkv, D]) land
    at cache row ``lens[b]`` of ``k_cache[b]`` / ``v_cache[b]``.

    k_cache / v_cache: [B, Hkv, T, D]; k_new / v_new: [B, Hkv, D]; lens
    [B] (REQUIRED - the write position is each sequence's current
    length). The contiguous twin of :func:`kv_append_paged`: the typical
    loop appends at ``lens[b]`` and then decodes with ``lens + 1``.

    CUDA caches may be float32, bfloat16 or float16 (rows copied in the
    storage dtype; k_new must match the cache dtype). Host-origin lens
    values are validated in ``[0, T)`` before the upload;
    device-resident tensors are trusted (same trust boundary as
    :func:`attention_decode`). Host paths require float32 C-contiguous
    caches (in-place op; a conversion would drop the writes). Returns
    None; the caches are mutated in place.
    """
    path = _device_path(k_cache, cuda)
    if path == "torch-cuda":
        for name, t in (("k_cache", k_cache), ("v_cache", v_cache),
                        ("k_new", k_new), ("v_new", v_new)):
            _check_torch_att(t, name)
        for name, t in (("v_cache", v_cache), ("k_new", k_new),
                        ("v_new", v_new)):
            if t.dtype is not k_cache.dtype:
                raise TypeError(f"{name} must have the cache dtype")
        if k_cache.ndim != 4 or v_cache.ndim != 4:
            raise ValueError("caches must be [B, Hkv, T, D]")
        if k_new.ndim != 3 or v_new.ndim != 3:
            raise ValueError("k_new/v_new must be [B, Hkv, D]")
        b, hkv, t_rows, d = k_cache.shape
        b2, hkv2, d2 = k_new.shape
        if (b2, hkv2, d2) != (b, hkv, d) \
                or v_cache.shape != k_cache.shape \
                or v_new.shape != k_new.shape:
            raise ValueError("k/v operands must match the cache layout")
        if b == 0:
            return None
        lt = _lens_arg(lens, b, t_rows, k_cache.device,
                       upper_inclusive=False)
        _att_launch_fn(k_cache, "kv_append_launch")(
            k_new.data_ptr(), v_new.data_ptr(), lt.data_ptr(),
            k_cache.data_ptr(), v_cache.data_ptr(),
            b, hkv, d, t_rows, _cuda_stream())
        return None
    # in-place op: a dtype/layout conversion would silently drop the
    # mutation (numpy would view a converted copy), so caches must
    # already be float32 C-contiguous on the host paths
    for name, arr in (("k_cache", k_cache), ("v_cache", v_cache)):
        raw = arr.numpy() if _is_torch(arr) else arr
        if not isinstance(raw, np.ndarray) or raw.dtype != np.float32 \
                or not raw.flags["C_CONTIGUOUS"]:
            raise TypeError(f"{name} must be a float32 C-contiguous array "
                            "(in-place op; conversion would drop writes)")
    arr_kc = _as_numpy(k_cache, "k_cache")
    arr_vc = _as_numpy(v_cache, "v_cache")
    arr_kn = _as_numpy(k_new, "k_new")
    arr_vn = _as_numpy(v_new, "v_new")
    if arr_kc.ndim != 4 or arr_kn.ndim != 3:
        raise ValueError("caches [B,Hkv,T,D]; k_new [B,Hkv,D]")
    b, hkv, t_rows, d = arr_kc.shape
    if arr_kn.shape != (b, hkv, d) or arr_vc.shape != arr_kc.shape \
            or arr_vn.shape != arr_kn.shape:
        raise ValueError("k/v operands must match the cache layout")
    # staged upload: host lens values are validated in [0, T) here so a
    # bad write position cannot become a silent GPU out-of-bounds write
    # (in-place op - the corruption would persist in the cache)
    arr_l = _host_lens_checked(lens, b, t_rows, upper_inclusive=False)
    if arr_l is None:
        raise TypeError("lens must be a host array on this path")
    if path == "staged":
        _fusedtok.kv_append(arr_kn, arr_vn, arr_l, arr_kc, arr_vc,
                            b, hkv, d, t_rows)
    else:
        _fusedtok.kv_append_cpu(arr_kn, arr_vn, arr_l, arr_kc, arr_vc,
                                b, hkv, d, t_rows)
    return None


# ---------------------------------------------------------------------------
# sampling / logits post-processing
# ---------------------------------------------------------------------------


def argmax(x, *, cuda=False):
    """Index of the largest element (earliest index on ties)."""
    path = _device_path(x, cuda)
    if path == "torch-cuda":
        _check_torch_f32(x, "x")
        if x.ndim != 1:
            raise ValueError("x must be 1-D for argmax")
        if x.numel() == 0:
            # the GPU launcher skips empty inputs without writing the
            # output slot - raise here to match the CPU reference
            raise ValueError("argmax of empty input")
        out = torch.empty(1, dtype=torch.int32, device=x.device)
        _fusedtok.argmax_launch(x.data_ptr(), out.data_ptr(),
                                x.numel(), _cuda_stream())
        return int(out.item())
    arr = _as_numpy(x, "x")
    if arr.ndim != 1:
        raise ValueError("x must be 1-D for argmax")
    call = _fusedtok.argmax if path == "staged" else _fusedtok.argmax_cpu
    return int(call(arr))


def argmax_batched(x, *, cuda=False):
    """Row-wise argmax for a 2-D batch: one launch for the whole
    ``[rows, vocab]`` batch, one index per row (earliest index wins
    ties within each row - the single-row ``argmax`` rule applied
    verbatim).

    Returns int64 indices: a CUDA torch tensor for CUDA input
    (stream-ordered, zero-copy - no host sync), a CPU torch tensor for
    CPU torch input, a numpy array otherwise. This is the greedy decode
    step for a batch: no seeds, no temperature, no readback on the
    zero-copy path.
    """
    path = _device_path(x, cuda)
    if path == "torch-cuda":
        _check_torch_f32(x, "x")
        if x.ndim != 2:
            raise ValueError("x must be 2-D [rows, vocab] for argmax_batched")
        if x.shape[1] == 0:
            raise ValueError("argmax of empty input")
        rows, n = x.shape
        out = torch.empty(rows, dtype=torch.int64, device=x.device)
        _fusedtok.argmax_batched_launch(x.data_ptr(), rows, n,
                                        out.data_ptr(), _cuda_stream())
        return out
    arr = _as_numpy(x, "x")
    if arr.ndim != 2:
        raise ValueError("x must be 2-D [rows, vocab] for argmax_batched")
    if arr.shape[1] == 0:
        raise ValueError("argmax of empty input")
    rows, n = arr.shape
    call = (_fusedtok.argmax_batched if path == "staged"
            else _fusedtok.argmax_batched_cpu)
    out = np.asarray(call(arr, rows, n), dtype=np.int64)
    return _numpy_to_torch_like(out) if _is_torch(x) else out


def topk(x, k, *, cuda=False):
    """Top-k selection: the k largest elements and their indices,
    descending, earliest index on ties. Returns ``(values, indices)``."""
    path = _device_path(x, cuda)
    if path == "torch-cuda":
        _check_torch_f32(x, "x")
        if x.ndim != 1:
            raise ValueError("x must be 1-D for topk")
        n = x.numel()
        if not 0 <= k <= n:
            raise ValueError("k must be in [0, n]")
        vals = torch.empty(k, dtype=torch.float32, device=x.device)
        idxs = torch.empty(k, dtype=torch.int64, device=x.device)
        if k > 0:
            _fusedtok.topk_launch(x.data_ptr(), vals.data_ptr(),
                                  idxs.data_ptr(), n, k, _cuda_stream())
        return vals, idxs
    arr = _as_numpy(x, "x")
    if arr.ndim != 1:
        raise ValueError("x must be 1-D for topk")
    call = _fusedtok.topk if path == "staged" else _fusedtok.topk_cpu
    vals, idxs = call(arr, k)
    if _is_torch(x):
        vals = _numpy_to_torch_like(vals)
        idxs = torch.from_numpy(idxs)
    return vals, idxs


def topp(probs, p, *, cuda=False):
    """Top-p (nucleus) selection: the smallest set of highest-probability
    elements whose cumulative mass reaches p (crossing element included).
    Returns ``(values, indices)`` descending."""
    if not 0.0 < p <= 1.0:
        raise ValueError("p must be in (0, 1]")
    path = _device_path(probs, cuda)
    if path == "torch-cuda":
        _check_torch_f32(probs, "probs")
        if probs.ndim != 1:
            raise ValueError("probs must be 1-D for topp")
        n = probs.numel()
        if n == 0:
            return (torch.empty(0, dtype=torch.float32, device=probs.device),
                    torch.empty(0, dtype=torch.int64, device=probs.device))
        vals = torch.empty(n, dtype=torch.float32, device=probs.device)
        idxs = torch.empty(n, dtype=torch.int64, device=probs.device)
        cnt = torch.empty(1, dtype=torch.int32, device=probs.device)
        _fusedtok.topp_select_launch(probs.data_ptr(), vals.data_ptr(),
                                     idxs.data_ptr(), n, p, cnt.data_ptr(),
                                     _cuda_stream())
        c = int(cnt.item())
        return vals[:c], idxs[:c]
    arr = _as_numpy(probs, "probs")
    if arr.ndim != 1:
        raise ValueError("probs must be 1-D for topp")
    call = _fusedtok.topp if path == "staged" else _fusedtok.topp_cpu
    vals, idxs = call(arr, p)
    if _is_torch(probs):
        vals = _numpy_to_torch_like(vals)
        idxs = torch.from_numpy(idxs)
    return vals, idxs


def repetition_penalty(logits, token_ids, penalty, *, cuda=False):
    """CTRL-style repetition penalty on logits before sampling:

    for every id in token_ids (previously generated tokens):
    ``logit /= penalty`` if positive, ``logit *= penalty`` if negative.

    logits: 1-D [vocab]; token_ids: 1-D ints; penalty > 0 (1.0 = disabled).
    Host-side token id values are validated against the vocab; a CUDA
    ids tensor is trusted (no stream sync - see the lens note in
    :func:`attention_decode`).
    """
    if not penalty > 0.0:
        raise ValueError("penalty must be > 0")
    path = _device_path(logits, cuda)
    if path == "torch-cuda":
        _check_torch_f32(logits, "logits")
        if logits.ndim != 1:
            raise ValueError("logits must be 1-D")
        n = logits.numel()
        ids = _ids_arg(token_ids, n, logits.device, "token_ids")
        out = torch.empty_like(logits)
        _fusedtok.repetition_penalty_launch(
            logits.data_ptr(), ids.data_ptr(), out.data_ptr(),
            n, ids.numel(), penalty, _cuda_stream())
        return out
    arr = _as_numpy(logits, "logits")
    if arr.ndim != 1:
        raise ValueError("logits must be 1-D")
    # host ids: integral dtype + 1-D (no silent ravel); value range is
    # validated by the binding before the upload
    ids_host = _host_int_array(token_ids, "token_ids")
    if ids_host is None:
        raise TypeError("token_ids must be a host array on this path")
    ids = np.ascontiguousarray(ids_host, dtype=np.int64)
    if ids.ndim != 1:
        raise ValueError("token_ids must be 1-D")
    call = (_fusedtok.repetition_penalty if path == "staged"
            else _fusedtok.repetition_penalty_cpu)
    res = call(arr, ids, penalty)
    return _numpy_to_torch_like(res) if _is_torch(logits) else res


def logit_penalties(logits, token_ids, *, repetition=1.0, presence=0.0,
                    frequency=0.0, cuda=False):
    """HF-style combined logit penalties before sampling, one call.

    For every distinct id in ``token_ids`` (previously generated tokens),
    with ``c`` = how often that id occurs in ``token_ids``:

    ``logit = logit / repetition`` if positive, ``logit * repetition``
    otherwise (CTRL rule, ``repetition`` > 0, 1.0 = disabled); then
    ``logit -= presence`` (0.0 = disabled); then
    ``logit -= c * frequency`` (0.0 = disabled).

    The composition order matches the HF processors; each distinct id is
    penalized exactly once no matter how often it appears, so duplicates
    never stack (the count only enters the frequency term). Unlisted
    logits pass through unchanged.

    logits: 1-D [vocab]; token_ids: 1-D ints (host values are validated
    against the vocab; a CUDA ids tensor is trusted - no stream sync, see
    the lens note in :func:`attention_decode`). CPU and GPU paths agree
    bit-exactly (integer counts, no atomics on the output).
    """
    if not repetition > 0.0:
        raise ValueError("repetition must be > 0")
    path = _device_path(logits, cuda)
    if path == "torch-cuda":
        _check_torch_f32(logits, "logits")
        if logits.ndim != 1:
            raise ValueError("logits must be 1-D")
        n = logits.numel()
        ids = _ids_arg(token_ids, n, logits.device, "token_ids")
        out = torch.empty_like(logits)
        _fusedtok.logit_penalties_launch(
            logits.data_ptr(), ids.data_ptr(), out.data_ptr(),
            n, ids.numel(), repetition, presence, frequency, _cuda_stream())
        return out
    arr = _as_numpy(logits, "logits")
    if arr.ndim != 1:
        raise ValueError("logits must be 1-D")
    # host ids: integral dtype + 1-D (no silent ravel); value range is
    # validated by the binding before the upload
    ids_host = _host_int_array(token_ids, "token_ids")
    if ids_host is None:
        raise TypeError("token_ids must be a host array on this path")
    ids = np.ascontiguousarray(ids_host, dtype=np.int64)
    if ids.ndim != 1:
        raise ValueError("token_ids must be 1-D")
    call = (_fusedtok.logit_penalties if path == "staged"
            else _fusedtok.logit_penalties_cpu)
    res = call(arr, ids, repetition, presence, frequency)
    return _numpy_to_torch_like(res) if _is_torch(logits) else res


def logit_penalties_batched(logits, token_ids, *, repetition=1.0,
                            presence=0.0, frequency=0.0, ids_offsets=None,
                            cuda=False):
    """HF-style combined logit penalties for a whole batch, one call.

    ``logits`` is 2-D ``[rows, vocab]`` (contiguous, float32). Every row
    runs the exact ``logit_penalties`` pipeline over its own history -
    CTRL repetition scale, then presence shift, then count-weighted
    frequency shift - and the call returns the penalized logits with the
    same shape and type family as the input (a CUDA torch tensor on the
    zero-copy path, otherwise a CPU array/tensor of float32).

    ``token_ids`` carries the per-row histories exactly like
    :func:`decode_step_batched`: a ragged sequence of per-row sequences,
    a 2-D integer array (every row contributes all its columns), or a
    flat 1-D integer array plus ``ids_offsets`` (rows + 1 non-decreasing
    entries starting at 0). Values must lie in ``[0, vocab)``.
    ``repetition`` > 0 (1.0 disables the scale), ``presence`` and
    ``frequency`` are plain shifts (0.0 disables). Duplicates never
    stack: an id is penalized once per row with ``c`` = its count in
    that row, entering only the frequency term.

    Per-row deterministic (no seeds - the op is not stochastic); each
    row's output is bit-identical to the single-row ``logit_penalties``
    on that row, on every path. The per-row histograms ride a cached
    workspace allocated outside stream captures, so the op is CUDA-graph
    capturable after a warm-up call (a cold capture falls back to a
    slower per-row path that needs ``out`` scratch internally - the
    Python wrapper always returns a fresh tensor, so wrapper users are
    unaffected).
    """
    if not repetition > 0.0:
        raise ValueError("repetition must be > 0")
    path = _device_path(logits, cuda)
    if path == "torch-cuda":
        _check_torch_f32(logits, "logits")
        if logits.ndim != 2:
            raise ValueError("logits must be 2-D [rows, vocab]")
        rows, n = logits.shape
        ids, offs = _batch_ids_arg(token_ids, ids_offsets, rows, n)
        out = torch.empty_like(logits)
        # ids/offs ride a small upload on the caller's stream (host
        # arrays -> device), the same boundary as _ids_arg on the
        # single-row op
        ids_d = torch.from_numpy(ids).to(logits.device)
        offs_d = torch.from_numpy(offs).to(logits.device)
        _fusedtok.logit_penalties_batched_launch(
            logits.data_ptr(), ids_d.data_ptr(), offs_d.data_ptr(),
            out.data_ptr(), rows, n, repetition, presence, frequency,
            _cuda_stream())
        return out
    arr = _as_numpy(logits, "logits")
    if arr.ndim != 2:
        raise ValueError("logits must be 2-D [rows, vocab]")
    rows, n = arr.shape
    ids, offs = _batch_ids_arg(token_ids, ids_offsets, rows, n)
    if rows == 0:
        out = np.empty((0, n), dtype=np.float32)
    else:
        call = (_fusedtok.logit_penalties_batched
                if path == "staged"
                else _fusedtok.logit_penalties_batched_cpu)
        out = np.asarray(call(arr, rows, n, ids, offs, repetition,
                              presence, frequency), dtype=np.float32)
    return _numpy_to_torch_like(out) if _is_torch(logits) else out


def quantize_int8(x):
    """Symmetric per-tensor INT8 quantization (storage path).

    ``scale = max(|x|) / 127``; ``q = clamp(round(x / scale), -127, 127)``.
    Returns ``(q, scale)`` where q matches the input family and scale is
    a Python float on EVERY path (reading the scale back is inherent to
    returning a host value; every consumer - dequantize, qgemm - takes a
    host float, so a device-resident scale would just defer the same
    readback with an inconsistent return type).
    """
    path = _device_path(x, cuda=False)
    if path == "torch-cuda":
        _check_torch_f32(x, "x")
        q = torch.empty(x.shape, dtype=torch.int8, device=x.device)
        scale = torch.empty(1, dtype=torch.float32, device=x.device)
        _fusedtok.quantize_launch(x.data_ptr(), q.data_ptr(),
                                  scale.data_ptr(), x.numel(),
                                  _cuda_stream())
        return q, float(scale)
    arr = _as_numpy(x, "x")
    q, s = _fusedtok.quantize_int8_cpu(arr)
    if _is_torch(x):
        return torch.from_numpy(q), s
    return q, s


def dequantize_int8(q, scale):
    """Dequantize int8 to float32: ``x = q * scale``.

    Accepts the UNPACKED pair from :func:`quantize_int8`:
    ``dequantize_int8(*quantize_int8(x))`` - passing the tuple itself is
    not valid. The CUDA path requires an int8 C-contiguous tensor (a
    wrong dtype or layout would be read as raw bytes); numpy and CPU
    tensors take the C++ CPU reference."""
    if _device_path(q, cuda=False) == "torch-cuda":
        if q.dtype is not torch.int8:
            raise TypeError(f"q must be int8, got {q.dtype}")
        _check_contiguous(q, "q")
        x = torch.empty(q.shape, dtype=torch.float32, device=q.device)
        _fusedtok.dequantize_launch(q.data_ptr(), x.data_ptr(),
                                    float(scale), q.numel(),
                                    _cuda_stream())
        return x
    arr = np.asarray(q)
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        # mirror the CUDA path's clear message instead of the opaque
        # pybind caster error a float array would produce
        raise TypeError(f"q must be int8, got {arr.dtype}")
    out = _fusedtok.dequantize_int8_cpu(arr, float(scale))
    return _numpy_to_torch_like(out) if _is_torch(q) else out


def qadd_int8(qa, sa, qb, sb):
    """Fused dequant-add-requant for int8 tensors: computes
    ``qa*sa + qb*sb`` in float32 and requantizes with the output's own
    per-tensor scale. Returns ``(qy, out_scale)`` with out_scale a
    Python float (same readback note as :func:`quantize_int8`). One
    device pass instead of dequant -> add -> quant round trips."""
    _require_cuda(qa, "qa")
    _require_cuda(qb, "qb")
    if qa.dtype is not torch.int8 or qb.dtype is not torch.int8:
        raise TypeError("inputs must be int8")
    _check_contiguous(qa, "qa")
    _check_contiguous(qb, "qb")
    if qa.shape != qb.shape:
        raise ValueError("inputs must have the same shape")
    qy = torch.empty(qa.shape, dtype=torch.int8, device=qa.device)
    out_scale = torch.empty(1, dtype=torch.float32, device=qa.device)
    _fusedtok.qadd_launch(qa.data_ptr(), qb.data_ptr(), float(sa), float(sb),
                          qy.data_ptr(), out_scale.data_ptr(), qa.numel(),
                          _cuda_stream())
    return qy, float(out_scale)


def _qgemm_operands(a_q, b_q):
    """Shared CUDA-path validation for qgemm / qgemm_perchannel: both
    int8, both 2-D row-major-along-K, inner dims matching. Returns
    (m, n, k)."""
    if not (_is_torch(b_q) and b_q.is_cuda):
        raise TypeError("both operands must be CUDA int8 tensors")
    if a_q.dtype is not torch.int8 or b_q.dtype is not torch.int8:
        raise TypeError("operands must be int8")
    _check_contiguous(a_q, "a_q")
    _check_contiguous(b_q, "b_q")
    if a_q.ndim != 2 or b_q.ndim != 2:
        raise ValueError("operands must be 2-D [rows, K]")
    m, k = a_q.shape
    n, k2 = b_q.shape
    if k != k2:
        raise ValueError("inner dimensions must match")
    return m, n, k


def _int8_operand(arr, name):
    """Host int8 operand for the qgemm family: reject non-integer
    dtypes instead of silently truncating (the same policy as
    ``_host_int_array`` - a silent float->int8 truncation corrupts
    data) and reject CUDA tensors (the host paths take host operands;
    a CUDA tensor here is the mixed-device-family TypeError), then
    coerce to contiguous int8."""
    if _is_torch(arr):
        if arr.is_cuda:
            raise TypeError(f"{name} must be a host tensor on this path")
        arr = arr.detach().numpy()
    a = np.asarray(arr)
    if a.size and not np.issubdtype(a.dtype, np.integer):
        raise TypeError(f"{name} must be an integer array, got {a.dtype}")
    return np.ascontiguousarray(a, dtype=np.int8)


def qgemm(a_q, a_scale, b_q, b_scale, *, cuda=False):
    """INT8 matmul with int32-exact accumulation:

    ``y[M, N] = (A_q[M, K] int8  @  B_q[N, K] int8 ^T) * (a_scale*b_scale)``

    Both operands are row-major along K - the LLM-friendly layout
    (``activations @ linear_weight.T``). ``M == 1`` dispatches to a
    warp-per-row GEMV kernel (the decode step). Results are bit-identical
    across the CPU / staged / zero-copy paths: integer accumulation is
    exact and the combined scale applies once at the store.
    """
    path = _device_path(a_q, cuda)
    if path == "torch-cuda":
        m, n, k = _qgemm_operands(a_q, b_q)
        y = torch.empty((m, n), dtype=torch.float32, device=a_q.device)
        # the launcher no-ops empty operands and zero-fills K == 0
        if m > 0 and n > 0:
            _fusedtok.qgemm_launch(a_q.data_ptr(), b_q.data_ptr(),
                                   y.data_ptr(), m, n, k,
                                   float(a_scale), float(b_scale),
                                   _cuda_stream())
        return y
    a = _int8_operand(a_q, "a_q")
    b = _int8_operand(b_q, "b_q")
    if a.ndim != 2 or b.ndim != 2:
        raise ValueError("operands must be 2-D [rows, K]")
    m, k = a.shape
    n, k2 = b.shape
    if k != k2:
        raise ValueError("inner dimensions must match")
    call = (_fusedtok.qgemm if path == "staged" else _fusedtok.qgemm_cpu)
    res = call(a, b, m, n, k, float(a_scale), float(b_scale))
    return _numpy_to_torch_like(res) if _is_torch(a_q) else res


def qgemm_perchannel(a_q, a_scale, b_q, b_scales, *, cuda=False):
    """INT8 matmul with per-output-channel weight scales (W8A8):

    ``y[M, N] = (A_q[M, K] int8 @ B_q[N, K] int8^T) * (a_scale * b_scales[j])``

    ``b_scales`` is a float32 vector of length N - one scale per output
    row of B_q (per output channel of the layer), the SmoothQuant /
    TensorRT-LLM INT8 inference layout. Per-channel weight scales absorb
    the outlier structure of real weights that a single per-tensor scale
    cannot, at the same INT8 storage cost.

    Exactness contract (identical to :func:`qgemm`): the integer
    accumulation is exact, the output scale is composed as
    ``float32(a_scale * b_scales[j])`` with a single rounding, and the
    product applies once - CPU, staged and zero-copy results are
    BIT-IDENTICAL. ``M == 1`` dispatches to the warp-per-row GEMV.
    """
    path = _device_path(a_q, cuda)
    if path == "torch-cuda":
        m, n, k = _qgemm_operands(a_q, b_q)
        if not _is_torch(b_scales):
            b_scales = torch.as_tensor(b_scales, dtype=torch.float32,
                                       device=a_q.device)
        if b_scales.ndim != 1 or b_scales.numel() != n:
            raise ValueError("b_scales must be 1-D with n entries")
        if b_scales.dtype is not torch.float32:
            b_scales = b_scales.to(torch.float32)
        if not b_scales.is_contiguous():
            b_scales = b_scales.contiguous()
        if not b_scales.is_cuda:
            b_scales = b_scales.to(a_q.device)
        y = torch.empty((m, n), dtype=torch.float32, device=a_q.device)
        # the launcher no-ops empty operands and zero-fills K == 0
        if m > 0 and n > 0:
            _fusedtok.qgemm_perchannel_launch(
                a_q.data_ptr(), b_q.data_ptr(), b_scales.data_ptr(),
                y.data_ptr(), m, n, k, float(a_scale), _cuda_stream())
        return y
    a = _int8_operand(a_q, "a_q")
    b = _int8_operand(b_q, "b_q")
    sb = np.ascontiguousarray(b_scales, dtype=np.float32)
    if a.ndim != 2 or b.ndim != 2:
        raise ValueError("operands must be 2-D [rows, K]")
    m, k = a.shape
    n, k2 = b.shape
    if k != k2:
        raise ValueError("inner dimensions must match")
    if sb.ndim != 1 or sb.shape[0] != n:
        raise ValueError("b_scales must be 1-D with n entries")
    call = (_fusedtok.qgemm_perchannel if path == "staged"
            else _fusedtok.qgemm_perchannel_cpu)
    res = call(a, b, sb, m, n, k, float(a_scale))
    return _numpy_to_torch_like(res) if _is_torch(a_q) else res


def sample_topp(logits, p, *, temperature=1.0, seed=0, cuda=False):
    """Fused nucleus sampling: one GPU round trip from raw logits to a token.

    Pipeline (selection pipeline with a global-mass threshold): softmax of
    ``logits / temperature`` -> truncate to the smallest top-p nucleus ->
    inverse-CDF draw using a hash-uniform of ``seed``. Deterministic per
    seed; the RNG is a splitmix-style hash (reproducible, NOT
    cryptographically secure).

    Returns the sampled token id (int). ``p`` in (0, 1], temperature > 0.
    """
    if not 0.0 < p <= 1.0:
        raise ValueError("p must be in (0, 1]")
    if not temperature > 0.0:
        raise ValueError("temperature must be > 0")
    path = _device_path(logits, cuda)
    if path == "torch-cuda":
        _check_torch_f32(logits, "logits")
        if logits.ndim != 1:
            raise ValueError("logits must be 1-D")
        return int(_fusedtok.sample_topp_launch(logits.data_ptr(),
                                                logits.numel(), p,
                                                temperature, seed,
                                                _cuda_stream()))
    arr = _as_numpy(logits, "logits")
    if arr.ndim != 1:
        raise ValueError("logits must be 1-D")
    call = (_fusedtok.sample_topp if path == "staged"
            else _fusedtok.sample_topp_cpu)
    return int(call(arr, p, temperature, seed))


def sample_topk(logits, k, *, temperature=1.0, seed=0, cuda=False):
    """Fused top-k sampling: one GPU round trip from raw logits to a token.

    Pipeline: softmax of ``logits / temperature`` -> keep the k
    highest-probability tokens -> renormalize WITHIN the k survivors ->
    inverse-CDF draw using a hash-uniform of ``seed``. Deterministic per
    seed; the RNG is a splitmix-style hash (reproducible, NOT
    cryptographically secure).

    Returns the sampled token id (int). ``k`` in ``[1, vocab]``
    (``k = 1`` is greedy; ``k >= vocab`` samples the whole distribution).
    temperature > 0.
    """
    if k <= 0:
        raise ValueError("k must be >= 1")
    if not temperature > 0.0:
        raise ValueError("temperature must be > 0")
    path = _device_path(logits, cuda)
    if path == "torch-cuda":
        _check_torch_f32(logits, "logits")
        if logits.ndim != 1:
            raise ValueError("logits must be 1-D")
        return int(_fusedtok.sample_topk_launch(logits.data_ptr(),
                                                logits.numel(), k,
                                                temperature, seed,
                                                _cuda_stream()))
    arr = _as_numpy(logits, "logits")
    if arr.ndim != 1:
        raise ValueError("logits must be 1-D")
    call = (_fusedtok.sample_topk if path == "staged"
            else _fusedtok.sample_topk_cpu)
    return int(call(arr, k, temperature, seed))


def sample_minp(logits, min_p, *, temperature=1.0, seed=0, cuda=False):
    """Fused min-p sampling: one GPU round trip from raw logits to a token.

    Pipeline: softmax of ``logits / temperature`` -> keep every token
    whose probability is at least ``min_p`` times the MAXIMUM
    probability -> renormalize within that nucleus -> inverse-CDF draw
    using a hash-uniform of ``seed``. Deterministic per seed; the RNG
    is a splitmix-style hash (reproducible, NOT cryptographically
    secure).

    Returns the sampled token id (int). ``min_p`` in (0, 1]
    (1.0 collapses to greedy among the max-probability tokens),
    temperature > 0.
    """
    if not 0.0 < min_p <= 1.0:
        raise ValueError("min_p must be in (0, 1]")
    if not temperature > 0.0:
        raise ValueError("temperature must be > 0")
    path = _device_path(logits, cuda)
    if path == "torch-cuda":
        _check_torch_f32(logits, "logits")
        if logits.ndim != 1:
            raise ValueError("logits must be 1-D")
        return int(_fusedtok.sample_minp_launch(logits.data_ptr(),
                                                logits.numel(), min_p,
                                                temperature, seed,
                                                _cuda_stream()))
    arr = _as_numpy(logits, "logits")
    if arr.ndim != 1:
        raise ValueError("logits must be 1-D")
    call = (_fusedtok.sample_minp if path == "staged"
            else _fusedtok.sample_minp_cpu)
    return int(call(arr, min_p, temperature, seed))


def sample_topa(logits, top_a, *, temperature=1.0, seed=0, cuda=False):
    """Fused top-a sampling: one GPU round trip from raw logits to a token.

    Pipeline: softmax of ``logits / temperature`` -> keep every token
    whose probability is at least ``top_a`` times the SQUARE of the
    maximum probability -> renormalize within that nucleus ->
    inverse-CDF draw using a hash-uniform of ``seed``. Like min-p this
    is a value-threshold nucleus, but the bar falls with the SQUARE of
    the peak: confident distributions keep a tight head, flat ones keep
    almost everything (the cutoff is ``top_a * p_max**2`` and
    ``p_max`` itself shrinks as the distribution flattens). Deterministic per
    seed; the RNG is a splitmix-style hash (reproducible, NOT
    cryptographically secure).

    Returns the sampled token id (int). ``top_a`` in (0, 1]
    (1.0 keeps only tokens whose probability reaches the squared peak -
    for a unique maximum that is the argmax alone), temperature
    > 0. The nucleus always keeps at least one token.
    """
    if not 0.0 < top_a <= 1.0:
        raise ValueError("top_a must be in (0, 1]")
    if not temperature > 0.0:
        raise ValueError("temperature must be > 0")
    path = _device_path(logits, cuda)
    if path == "torch-cuda":
        _check_torch_f32(logits, "logits")
        if logits.ndim != 1:
            raise ValueError("logits must be 1-D")
        return int(_fusedtok.sample_topa_launch(logits.data_ptr(),
                                                logits.numel(), top_a,
                                                temperature, seed,
                                                _cuda_stream()))
    arr = _as_numpy(logits, "logits")
    if arr.ndim != 1:
        raise ValueError("logits must be 1-D")
    call = (_fusedtok.sample_topa if path == "staged"
            else _fusedtok.sample_topa_cpu)
    return int(call(arr, top_a, temperature, seed))


def sample_nsigma(logits, nsigma, *, temperature=1.0, seed=0, cuda=False):
    """Fused top-n-sigma sampling: one GPU round trip from raw logits
    to a token.

    Pipeline: temperature-scale the logits -> keep every token whose
    scaled logit is at least ``nsigma`` standard deviations below the
    mean (``logit >= mean - nsigma * sigma``, the moments taken over
    the whole row) -> softmax over the survivors -> inverse-CDF draw
    using a hash-uniform of ``seed`` (Shi et al. 2024, "Top-n sigma:
    Not All Logits Are You Need"). The cutoff moves with the row's own
    spread: a confident row trims its long tail hard, a flat row keeps
    everything. Deterministic per seed; the RNG is a splitmix-style
    hash (reproducible, NOT cryptographically secure).

    Returns the sampled token id (int). ``nsigma`` > 0 (the paper's
    sweet spot is 1.0-3.0; huge values approach plain sampling),
    temperature > 0. The nucleus always keeps at least one token.
    """
    if not nsigma > 0.0:
        raise ValueError("nsigma must be > 0")
    if not temperature > 0.0:
        raise ValueError("temperature must be > 0")
    path = _device_path(logits, cuda)
    if path == "torch-cuda":
        _check_torch_f32(logits, "logits")
        if logits.ndim != 1:
            raise ValueError("logits must be 1-D")
        return int(_fusedtok.sample_nsigma_launch(logits.data_ptr(),
                                                  logits.numel(), nsigma,
                                                  temperature, seed,
                                                  _cuda_stream()))
    arr = _as_numpy(logits, "logits")
    if arr.ndim != 1:
        raise ValueError("logits must be 1-D")
    call = (_fusedtok.sample_nsigma if path == "staged"
            else _fusedtok.sample_nsigma_cpu)
    return int(call(arr, nsigma, temperature, seed))


def sample_eta(logits, eta, *, temperature=1.0, seed=0, cuda=False):
    """Fused eta-cutoff sampling: one GPU round trip from raw logits to
    a token.

    Pipeline: softmax of ``logits / temperature`` -> compute the
    distribution entropy H (in nats) -> keep every token whose
    probability is at least ``eta * min(1, exp(-H))`` ->
    renormalize within that nucleus -> inverse-CDF draw using a
    hash-uniform of ``seed`` (Hewitt et al. 2022). The cutoff adapts
    to the distribution's own shape: confident distributions raise the
    bar toward ``eta`` itself, flat ones lower it toward zero. Deterministic per seed; the
    RNG is a splitmix-style hash (reproducible, NOT cryptographically
    secure).

    Returns the sampled token id (int). ``eta`` in (0, 1]
    (values near 1 keep only the most typical tokens of a peaked
    distribution; tiny values approach plain sampling), temperature
    > 0. The nucleus always keeps at least one token.
    """
    if not 0.0 < eta <= 1.0:
        raise ValueError("eta must be in (0, 1]")
    if not temperature > 0.0:
        raise ValueError("temperature must be > 0")
    path = _device_path(logits, cuda)
    if path == "torch-cuda":
        _check_torch_f32(logits, "logits")
        if logits.ndim != 1:
            raise ValueError("logits must be 1-D")
        return int(_fusedtok.sample_eta_launch(logits.data_ptr(),
                                               logits.numel(), eta,
                                               temperature, seed,
                                               _cuda_stream()))
    arr = _as_numpy(logits, "logits")
    if arr.ndim != 1:
        raise ValueError("logits must be 1-D")
    call = (_fusedtok.sample_eta if path == "staged"
            else _fusedtok.sample_eta_cpu)
    return int(call(arr, eta, temperature, seed))


def sample_typical(logits, typical, *, temperature=1.0, seed=0, cuda=False):
    """Fused locally typical sampling: one GPU round trip from raw
    logits to a token.

    Pipeline: softmax of ``logits / temperature`` -> compute the
    distribution entropy H (in nats) -> keep the smallest band of
    tokens whose |surprise - H| is smallest until the band's mass
    reaches ``typical`` -> renormalize inside that band ->
    inverse-CDF draw using a hash-uniform of ``seed`` (Meister et
    al. 2022). Unlike top-p/min-p the kept set is not a prefix of the
    ranked distribution: too-confident and too-surprising tokens are
    trimmed symmetrically, which is the point. Deterministic per
    seed; the RNG is a splitmix-style hash (reproducible, NOT
    cryptographically secure).

    Returns the sampled token id (int). ``typical`` in (0, 1]
    (values near 1 approach plain sampling over the whole
    vocabulary), temperature > 0. The band always keeps at least one
    token.
    """
    if not 0.0 < typical <= 1.0:
        raise ValueError("typical must be in (0, 1]")
    if not temperature > 0.0:
        raise ValueError("temperature must be > 0")
    path = _device_path(logits, cuda)
    if path == "torch-cuda":
        _check_torch_f32(logits, "logits")
        if logits.ndim != 1:
            raise ValueError("logits must be 1-D")
        return int(_fusedtok.sample_typical_launch(logits.data_ptr(),
                                                   logits.numel(), typical,
                                                   temperature, seed,
                                                   _cuda_stream()))
    arr = _as_numpy(logits, "logits")
    if arr.ndim != 1:
        raise ValueError("logits must be 1-D")
    call = (_fusedtok.sample_typical if path == "staged"
            else _fusedtok.sample_typical_cpu)
    return int(call(arr, typical, temperature, seed))


def sample_eta_batched(logits, eta, *, temperature=1.0, seeds=None,
                       cuda=False):
    """Fused eta-cutoff sampling for a batch of rows.

    ``logits`` is 2-D ``[rows, vocab]`` (contiguous, float32); every
    row runs the exact ``sample_eta`` pipeline and the call returns
    one token id per row (int64 array / torch tensor on CPU).
    ``eta`` in (0, 1], temperature > 0, seeds per row (``None``
    defaults to 0..rows-1). Deterministic per (row, seed); not
    CUDA-graph capturable.
    """
    if not 0.0 < eta <= 1.0:
        raise ValueError("eta must be in (0, 1]")
    if not temperature > 0.0:
        raise ValueError("temperature must be > 0")
    return _sample_batched("sample_eta", logits, (eta,),
                           temperature=temperature, seeds=seeds,
                           cuda=cuda)


def sample_typical_batched(logits, typical, *, temperature=1.0, seeds=None,
                           cuda=False):
    """Fused locally typical sampling for a batch of rows.

    ``logits`` is 2-D ``[rows, vocab]`` (contiguous, float32); every
    row runs the exact ``sample_typical`` pipeline and the call returns
    one token id per row (int64 array / torch tensor on CPU).
    ``typical`` in (0, 1], temperature > 0, seeds per row (``None``
    defaults to 0..rows-1). Deterministic per (row, seed); not
    CUDA-graph capturable.
    """
    if not 0.0 < typical <= 1.0:
        raise ValueError("typical must be in (0, 1]")
    if not temperature > 0.0:
        raise ValueError("temperature must be > 0")
    return _sample_batched("sample_typical", logits, (typical,),
                           temperature=temperature, seeds=seeds,
                           cuda=cuda)


def sample_tfs(logits, z, *, temperature=1.0, seed=0, cuda=False):
    """Fused tail-free sampling: one GPU round trip from raw logits to
    a token.

    Pipeline: softmax of ``logits / temperature`` -> sort descending ->
    compute the CDF second derivative -> normalize to [0,1] -> keep
    the prefix where the normalized second derivative stays above
    ``1 - z`` -> renormalize -> inverse-CDF draw using a hash-uniform
    of ``seed`` (Filazzola & Trottet 2023). ``z = 1`` keeps everything;
    lower values cut the flat tail more aggressively. Deterministic per
    seed; the RNG is a splitmix-style hash (reproducible, NOT
    cryptographically secure).

    Returns the sampled token id (int). ``z`` in (0, 1], temperature
    > 0. The nucleus always keeps at least one token.
    """
    if not 0.0 < z <= 1.0:
        raise ValueError("z must be in (0, 1]")
    if not temperature > 0.0:
        raise ValueError("temperature must be > 0")
    path = _device_path(logits, cuda)
    if path == "torch-cuda":
        _check_torch_f32(logits, "logits")
        if logits.ndim != 1:
            raise ValueError("logits must be 1-D")
        return int(_fusedtok.sample_tfs_launch(logits.data_ptr(),
                                                logits.numel(), z,
                                                temperature, seed,
                                                _cuda_stream()))
    arr = _as_numpy(logits, "logits")
    if arr.ndim != 1:
        raise ValueError("logits must be 1-D")
    call = (_fusedtok.sample_tfs if path == "staged"
            else _fusedtok.sample_tfs_cpu)
    return int(call(arr, z, temperature, seed))


def sample_tfs_batched(logits, z, *, temperature=1.0, seeds=None,
                        cuda=False):
    """Fused tail-free sampling for a batch of rows.

    ``logits`` is 2-D ``[rows, vocab]`` (contiguous, float32); every
    row runs the exact ``sample_tfs`` pipeline and the call returns
    one token id per row (int64 array / torch tensor on CPU).

    ``seeds`` is one non-negative integer per row; ``None`` defaults
    to ``0..rows-1``. ``z`` in (0, 1], temperature > 0. Deterministic
    per (row, seed); not CUDA-graph capturable.
    """
    if not 0.0 < z <= 1.0:
        raise ValueError("z must be in (0, 1]")
    if not temperature > 0.0:
        raise ValueError("temperature must be > 0")
    return _sample_batched("sample_tfs", logits, (z,),
                           temperature=temperature, seeds=seeds,
                           cuda=cuda)


def sample_xtc(logits, top_n, probability, *, temperature=1.0, seed=0,
               cuda=False):
    """Fused XTC (Exclude Top Choices) sampling: with probability
    `probability`, the top `top_n` tokens are removed from the pool.
    """
    if top_n < 0:
        raise ValueError("top_n must be >= 0")
    if not 0.0 <= probability <= 1.0:
        raise ValueError("probability must be in [0, 1]")
    if not temperature > 0.0:
        raise ValueError("temperature must be > 0")
    path = _device_path(logits, cuda)
    if path == "torch-cuda":
        _check_torch_f32(logits, "logits")
        if logits.ndim != 1:
            raise ValueError("logits must be 1-D")
        return int(_fusedtok.sample_xtc_launch(logits.data_ptr(),
                                                logits.numel(), top_n,
                                                probability, temperature,
                                                seed, _cuda_stream()))
    arr = _as_numpy(logits, "logits")
    if arr.ndim != 1:
        raise ValueError("logits must be 1-D")
    call = (_fusedtok.sample_xtc if path == "staged"
            else _fusedtok.sample_xtc_cpu)
    return int(call(arr, top_n, probability, temperature, seed))


def sample_xtc_batched(logits, top_n, probability, *, temperature=1.0,
                       seeds=None, cuda=False):
    """Fused XTC sampling for a batch of rows."""
    if top_n < 0:
        raise ValueError("top_n must be >= 0")
    if not 0.0 <= probability <= 1.0:
        raise ValueError("probability must be in [0, 1]")
    if not temperature > 0.0:
        raise ValueError("temperature must be > 0")
    return _sample_batched("sample_xtc", logits, (top_n, probability),
                           temperature=temperature, seeds=seeds,
                           cuda=cuda)


def sample_dry(logits, token_ids, allowed_length=2, multiplier=1.75,
               *, temperature=1.0, seed=0, cuda=False):
    """Fused DRY (Don't Repeat Yourself) sampling (v2.3): a
    sequence-aware repeat penalty followed by a temperature-scaled
    full-softmax draw.

    Only the most recent 64 ``token_ids`` participate (the documented
    scan window). For every suffix length ``L`` in
    ``[allowed_length, window)``, each earlier occurrence of the
    current L-suffix contributes the token that followed it; a token
    keeps the MAX exponent (``L - allowed_length + 1``) across those
    hits and its logit is divided by ``multiplier ** exponent``
    (negative logits are multiplied - the repetition_penalty
    convention, so the magnitude always shrinks). ``multiplier``
    >= 1.0 (1.0 disables the penalty); ``allowed_length`` in
    [1, 64]. Deterministic per seed (same splitmix contract as the
    other samplers). ``token_ids``: 1-D int array, values in
    [0, vocab); device-resident torch ids are trusted without a sync
    (the documented _ids_arg boundary).
    """
    if allowed_length < 1 or allowed_length > 64:
        raise ValueError("allowed_length must be in [1, 64]")
    if not multiplier >= 1.0:
        raise ValueError("multiplier must be >= 1")
    if not temperature > 0.0:
        raise ValueError("temperature must be > 0")
    path = _device_path(logits, cuda)
    if path == "torch-cuda":
        _check_torch_f32(logits, "logits")
        if logits.ndim != 1:
            raise ValueError("logits must be 1-D")
        n = logits.numel()
        ids_t = _ids_arg(token_ids, n, logits.device, "token_ids")
        return int(_fusedtok.sample_dry_launch(
            logits.data_ptr(), n, ids_t.data_ptr(), ids_t.numel(),
            allowed_length, multiplier, temperature, seed,
            _cuda_stream()))
    arr = _as_numpy(logits, "logits")
    if arr.ndim != 1:
        raise ValueError("logits must be 1-D")
    n = arr.shape[0]
    ids_np = np.ascontiguousarray(_host_int_array(token_ids, "token_ids"),
                                  dtype=np.int64)
    if ids_np.ndim != 1:
        raise ValueError("token_ids must be 1-D")
    if ids_np.size and (ids_np.min() < 0 or ids_np.max() >= n):
        raise ValueError(f"token_ids values must be in [0, {n})")
    call = (_fusedtok.sample_dry if path == "staged"
            else _fusedtok.sample_dry_cpu)
    return int(call(arr, ids_np, allowed_length, multiplier, temperature,
                    seed))


def sample_dry_batched(logits, token_ids, allowed_length=2,
                       multiplier=1.75, *, temperature=1.0, seeds=None,
                       ids_offsets=None, cuda=False):
    """Fused DRY sampling for a batch of rows (v2.3).

    ``logits`` is 2-D ``[rows, vocab]``. ``token_ids`` carries the
    per-row histories exactly like ``decode_step_batched``: a ragged
    sequence of per-row sequences, a 2-D integer array (every row
    contributes ALL its columns), or a flat 1-D array plus
    ``ids_offsets``. Each row is the single-row ``sample_dry``
    pipeline - penalty scan, temperature scale, full-softmax draw -
    with its own seed, so per-row results match the single-row API up
    to the documented ulp boundary class. ``seeds`` one non-negative
    integer per row (``None`` defaults to ``0..rows-1``).
    """
    if allowed_length < 1 or allowed_length > 64:
        raise ValueError("allowed_length must be in [1, 64]")
    if not multiplier >= 1.0:
        raise ValueError("multiplier must be >= 1")
    if not temperature > 0.0:
        raise ValueError("temperature must be > 0")
    # the histories normalize to host arrays either way (the C++
    # launcher uploads them on the caller's stream), so they ride the
    # shared dispatcher as plain extra arguments on every path
    # branch on the EXECUTION path, not on torch-ness: a torch CPU
    # tensor is a supported host input (the dispatcher converts it),
    # and _check_torch_f32 would reject it with a misleading
    # zero-copy-only TypeError (the 2.4.2 regression this fixes)
    if _device_path(logits, cuda) == "torch-cuda":
        _check_torch_f32(logits, "logits")
        if logits.ndim != 2:
            raise ValueError("logits must be 2-D [rows, vocab]")
        rows, n = logits.shape
    else:
        arr = _as_numpy(logits, "logits")
        if arr.ndim != 2:
            raise ValueError("logits must be 2-D [rows, vocab]")
        rows, n = arr.shape
    ids, offs = _batch_ids_arg(token_ids, ids_offsets, rows, n)
    return _sample_batched("sample_dry", logits,
                           (ids, offs, allowed_length, multiplier),
                           temperature=temperature, seeds=seeds,
                           cuda=cuda)


def sample_mirostat(logits, mu, *, tau=5.0, eta=0.1, temperature=1.0,
                    seed=0, cuda=False):
    """Fused Mirostat v2 sampling (v2.5, Basirat 2023): entropy-targeting
    sampling with a caller-owned surprise bound.

    Unlike the other samplers this returns a TUPLE
    ``(token, new_mu)`` - the mu state is the loop variable a decode
    step feeds back into the next call (initialize with ``2 * tau``).
    The nucleus is every token with ``p_i >= 2 ** -mu`` (an absolute
    probability threshold, boundary-inclusive like the library's other
    value thresholds); an empty nucleus falls back to the top-1 token.
    The draw renormalizes inside the nucleus, and the state update is
    ``new_mu = mu - eta * (s - tau)`` where ``s = -log2(p_sampled)``
    under the full softmax. ``tau`` (target entropy) and ``eta``
    (learning rate) must be positive; the paper's defaults are 5.0 and
    0.1. Deterministic per seed. The token follows the standard
    neighbor-rank contract between paths; ``new_mu`` is derived
    arithmetic and may differ at the ulp level between CPU and GPU.
    """
    if not tau > 0.0:
        raise ValueError("tau must be > 0")
    if not eta > 0.0:
        raise ValueError("eta must be > 0")
    if not temperature > 0.0:
        raise ValueError("temperature must be > 0")
    if not np.isfinite(mu):
        raise ValueError("mu must be finite")
    path = _device_path(logits, cuda)
    if path == "torch-cuda":
        _check_torch_f32(logits, "logits")
        if logits.ndim != 1:
            raise ValueError("logits must be 1-D")
        toks, muv = _fusedtok.sample_mirostat_launch(
            logits.data_ptr(), logits.numel(), mu, tau, eta,
            temperature, seed, _cuda_stream())
        return int(toks), float(muv)
    arr = _as_numpy(logits, "logits")
    if arr.ndim != 1:
        raise ValueError("logits must be 1-D")
    call = (_fusedtok.sample_mirostat if path == "staged"
            else _fusedtok.sample_mirostat_cpu)
    toks, muv = call(arr, mu, tau, eta, temperature, seed)
    return int(toks), float(muv)


def sample_mirostat_batched(logits, mus, *, tau=5.0, eta=0.1,
                            temperature=1.0, seeds=None, cuda=False):
    """Fused Mirostat v2 sampling for a batch of rows (v2.5).

    Returns ``(tokens, new_mus)`` - int64 tokens (array / CPU torch
    tensor) and float32 new mu states, one per row. Each row carries
    its OWN mu in ``mus`` (row states are independent conversations).
    Every row runs the single-row pipeline with its own seed; the
    batched GPU path loops the fused single-row launcher on the
    caller's stream (the documented first implementation - see the
    sampling page).
    """
    if not tau > 0.0:
        raise ValueError("tau must be > 0")
    if not eta > 0.0:
        raise ValueError("eta must be > 0")
    if not temperature > 0.0:
        raise ValueError("temperature must be > 0")
    mus = np.ascontiguousarray(mus, dtype=np.float32)
    if mus.ndim != 1:
        raise ValueError("mus must be 1-D")
    if not np.all(np.isfinite(mus)):
        raise ValueError("mu must be finite")
    path = _device_path(logits, cuda)
    if path == "torch-cuda":
        _check_torch_f32(logits, "logits")
        if logits.ndim != 2:
            raise ValueError("logits must be 2-D [rows, vocab]")
        rows, n = logits.shape
        if mus.shape[0] != rows:
            raise ValueError("mus must have one entry per row")
        s = _batch_seeds(seeds, rows, "seeds")
        toks, muv = _fusedtok.sample_mirostat_batched_launch(
            logits.data_ptr(), rows, n, mus, tau, eta, temperature, s,
            _cuda_stream())
        return (torch.from_numpy(np.asarray(toks, dtype=np.int64)),
                torch.from_numpy(np.asarray(muv, dtype=np.float32)))
    arr = _as_numpy(logits, "logits")
    if arr.ndim != 2:
        raise ValueError("logits must be 2-D [rows, vocab]")
    rows, n = arr.shape
    if mus.shape[0] != rows:
        raise ValueError("mus must have one entry per row")
    s = _batch_seeds(seeds, rows, "seeds")
    if rows == 0:
        return (np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float32))
    call = (_fusedtok.sample_mirostat_batched if path == "staged"
            else _fusedtok.sample_mirostat_batched_cpu)
    toks, muv = call(arr, rows, n, mus, tau, eta, temperature, s)
    toks = np.asarray(toks, dtype=np.int64)
    muv = np.asarray(muv, dtype=np.float32)
    if _is_torch(logits):
        return (torch.from_numpy(toks), torch.from_numpy(muv))
    return toks, muv


def _sample_batched(kind, logits, args, *, temperature, seeds, cuda):
    """Shared dispatcher behind the batched samplers (introduced in
    v1.4, generalized as the sampler family grew; since v2.4.2 every
    batched sampler - including the multi-arg xtc and the ragged dry -
    delegates here).
    ``kind`` selects the binding family
    ``_fusedtok.sample_<kind>_batched[_cpu|_launch]``; ``args`` is the
    per-op argument tuple spliced after ``(logits, rows, n)`` on every
    path. Parameter validation stays in the public wrappers so their
    error messages name the right argument. Returns int64 tokens: a
    CPU torch tensor for torch input, a numpy array otherwise (the
    widening loop's host readback is inherent - never a device
    tensor)."""
    extra = tuple(args)
    path = _device_path(logits, cuda)
    if path == "torch-cuda":
        _check_torch_f32(logits, "logits")
        if logits.ndim != 2:
            raise ValueError("logits must be 2-D [rows, vocab]")
        rows, n = logits.shape
        s = _batch_seeds(seeds, rows, "seeds")
        toks = getattr(_fusedtok, kind + "_batched_launch")(
            logits.data_ptr(), rows, n, *extra, temperature, s,
            _cuda_stream())
        return torch.from_numpy(np.asarray(toks, dtype=np.int64))
    arr = _as_numpy(logits, "logits")
    if arr.ndim != 2:
        raise ValueError("logits must be 2-D [rows, vocab]")
    rows, n = arr.shape
    s = _batch_seeds(seeds, rows, "seeds")
    if rows == 0:
        out = np.empty(0, dtype=np.int64)
    else:
        call = getattr(
            _fusedtok,
            kind + "_batched" if path == "staged"
            else kind + "_batched_cpu")
        out = np.asarray(call(arr, rows, n, *extra, temperature, s),
                         dtype=np.int64)
    return _numpy_to_torch_like(out) if _is_torch(logits) else out


def sample_topa_batched(logits, top_a, *, temperature=1.0, seeds=None,
                        cuda=False):
    """Fused top-a sampling for a batch of rows.

    ``logits`` is 2-D ``[rows, vocab]`` (contiguous, float32); every
    row runs the exact ``sample_topa`` pipeline (value-threshold
    nucleus at ``top_a`` times the squared row maximum) and the call
    returns one token id per row (int64 array / torch tensor on CPU).

    ``seeds`` is one non-negative integer per row; ``None`` defaults to
    ``0..rows-1``. ``top_a`` in (0, 1], temperature > 0. Deterministic
    per (row, seed); not CUDA-graph capturable. Each row's token
    matches the single-row API up to the documented __expf/atomic-order
    ulp boundary.
    """
    if not 0.0 < top_a <= 1.0:
        raise ValueError("top_a must be in (0, 1]")
    if not temperature > 0.0:
        raise ValueError("temperature must be > 0")
    return _sample_batched("sample_topa", logits, (top_a,),
                           temperature=temperature, seeds=seeds,
                           cuda=cuda)


def sample_nsigma_batched(logits, nsigma, *, temperature=1.0, seeds=None,
                          cuda=False):
    """Fused top-n-sigma sampling for a batch of rows.

    ``logits`` is 2-D ``[rows, vocab]`` (contiguous, float32); every
    row runs the exact ``sample_nsigma`` pipeline (cutoff at
    ``nsigma`` standard deviations below the row mean) and the call
    returns one token id per row (int64 array / torch tensor on CPU).

    ``seeds`` is one non-negative integer per row; ``None`` defaults to
    ``0..rows-1``. ``nsigma`` > 0, temperature > 0. Deterministic per
    (row, seed); not CUDA-graph capturable. Each row's token matches
    the single-row API up to the documented __expf/atomic-order ulp
    boundary.
    """
    if not nsigma > 0.0:
        raise ValueError("nsigma must be > 0")
    if not temperature > 0.0:
        raise ValueError("temperature must be > 0")
    return _sample_batched("sample_nsigma", logits, (nsigma,),
                           temperature=temperature, seeds=seeds,
                           cuda=cuda)


def sample_topp_batched(logits, p, *, temperature=1.0, seeds=None,
                        cuda=False):
    """Fused nucleus sampling for a batch of rows.

    ``logits`` is 2-D ``[rows, vocab]`` (contiguous, float32); every row
    runs the exact ``sample_topp`` pipeline and the call returns one
    token id per row (int64 array / torch tensor on CPU - the host
    readback is inherent to the widening loop).

    ``seeds`` is one non-negative integer per row; ``None`` defaults to
    ``0..rows-1`` so identical rows still draw independent tokens.
    ``p`` in (0, 1], temperature > 0. Deterministic per (row, seed);
    not CUDA-graph capturable (same contract as ``sample_topp``).
    Rows are processed in device-sized chunks; each row's token matches
    the single-row API up to the documented __expf/atomic-order ulp
    boundary.
    """
    if not 0.0 < p <= 1.0:
        raise ValueError("p must be in (0, 1]")
    if not temperature > 0.0:
        raise ValueError("temperature must be > 0")
    return _sample_batched("sample_topp", logits, (p,),
                           temperature=temperature, seeds=seeds,
                           cuda=cuda)


def sample_topk_batched(logits, k, *, temperature=1.0, seeds=None,
                        cuda=False):
    """Fused top-k sampling for a batch of rows.

    ``logits`` is 2-D ``[rows, vocab]`` (contiguous, float32); every row
    runs the exact ``sample_topk`` pipeline (``k`` shared by all rows,
    ``k >= vocab`` samples the whole distribution) and the call returns
    one token id per row (int64 array / torch tensor on CPU).

    ``seeds`` is one non-negative integer per row; ``None`` defaults to
    ``0..rows-1``. ``k`` >= 1, temperature > 0. Deterministic per
    (row, seed); not CUDA-graph capturable. Each row's token matches
    the single-row API up to the documented __expf/atomic-order ulp
    boundary.
    """
    if k <= 0:
        raise ValueError("k must be >= 1")
    if not temperature > 0.0:
        raise ValueError("temperature must be > 0")
    return _sample_batched("sample_topk", logits, (k,),
                           temperature=temperature, seeds=seeds,
                           cuda=cuda)


def sample_minp_batched(logits, min_p, *, temperature=1.0, seeds=None,
                        cuda=False):
    """Fused min-p sampling for a batch of rows.

    ``logits`` is 2-D ``[rows, vocab]`` (contiguous, float32); every row
    runs the exact ``sample_minp`` pipeline (value-threshold nucleus at
    ``min_p`` times the row maximum) and the call returns one token id
    per row (int64 array / torch tensor on CPU).

    ``seeds`` is one non-negative integer per row; ``None`` defaults to
    ``0..rows-1``. ``min_p`` in (0, 1], temperature > 0. Deterministic
    per (row, seed); not CUDA-graph capturable. Each row's token
    matches the single-row API up to the documented __expf/atomic-order
    ulp boundary.
    """
    if not 0.0 < min_p <= 1.0:
        raise ValueError("min_p must be in (0, 1]")
    if not temperature > 0.0:
        raise ValueError("temperature must be > 0")
    return _sample_batched("sample_minp", logits, (min_p,),
                           temperature=temperature, seeds=seeds,
                           cuda=cuda)


def decode_step(logits, sampled_ids, penalty=1.0, *, p=0.9, temperature=1.0,
                seed=0, cuda=False):
    """Fused decode step: one call from raw logits to the next token.

    Applies the CTRL-style repetition penalty over ``sampled_ids``
    (previously generated tokens), then the temperature scale, then
    nucleus-samples - the whole chain runs inside the selection pipeline
    (a vocab bitmap marks penalized ids; every logit read applies
    penalty then temperature, matching the composed reference order).

    Returns the sampled token id (int). Deterministic per seed.
    ``penalty`` > 0 (1.0 disables), ``p`` in (0, 1], temperature > 0.
    """
    if not penalty > 0.0:
        raise ValueError("penalty must be > 0")
    if not 0.0 < p <= 1.0:
        raise ValueError("p must be in (0, 1]")
    if not temperature > 0.0:
        raise ValueError("temperature must be > 0")
    path = _device_path(logits, cuda)
    if path == "torch-cuda":
        _check_torch_f32(logits, "logits")
        if logits.ndim != 1:
            raise ValueError("logits must be 1-D")
        n = logits.numel()
        ids = _ids_arg(sampled_ids, n, logits.device, "sampled_ids")
        return int(_fusedtok.decode_step_launch(
            logits.data_ptr(), ids.data_ptr(), n, ids.numel(),
            penalty, p, temperature, seed, _cuda_stream()))
    arr = _as_numpy(logits, "logits")
    if arr.ndim != 1:
        raise ValueError("logits must be 1-D")
    # host ids: integral dtype + 1-D (no silent ravel), range checked
    # against the vocab like _ids_arg does on the zero-copy path
    ids_host = _host_int_array(sampled_ids, "sampled_ids")
    if ids_host is None:
        raise TypeError("sampled_ids must be a host array on this path")
    ids = np.ascontiguousarray(ids_host, dtype=np.int64)
    if ids.ndim != 1:
        raise ValueError("sampled_ids must be 1-D")
    if ids.size and (ids.min() < 0 or ids.max() >= arr.size):
        raise ValueError(f"sampled_ids values must be in [0, {arr.size})")
    if path == "staged":
        return int(_fusedtok.decode_step(arr, ids, penalty, p, temperature,
                                         seed))
    # CPU reference: the composed three calls, same operation order
    penalized = _fusedtok.repetition_penalty_cpu(arr, ids, penalty)
    return int(_fusedtok.sample_topp_cpu(penalized, p, temperature, seed))


def _batch_ids_arg(sampled_ids, ids_offsets, rows, n):
    """Normalize per-row histories to (flat int64 ids, int64 offsets).

    Accepts a sequence of per-row sequences (ragged list of lists), a
    2-D array whose every row contributes all its columns, or the
    pre-normalized power path: a flat 1-D id array plus explicit
    ``ids_offsets``. Values are range-checked here for the ragged/2-D
    forms (they are host-origin by construction); CUDA torch ids are
    moved to host first - the histories ride a small per-attempt
    upload either way, so there is no zero-copy to preserve (the
    bindings re-validate every path).
    """
    if ids_offsets is not None:
        if _is_torch(sampled_ids):
            sampled_ids = sampled_ids.detach().cpu().numpy()
        if _is_torch(ids_offsets):
            ids_offsets = ids_offsets.detach().cpu().numpy()
        ids = np.ascontiguousarray(sampled_ids)
        if ids.ndim != 1:
            raise ValueError(
                "sampled_ids with ids_offsets must be a flat 1-D array")
        offs = np.ascontiguousarray(ids_offsets)
        if offs.ndim != 1 or offs.size != rows + 1:
            raise ValueError(
                "ids_offsets must be 1-D with rows + 1 entries")
        if not np.issubdtype(ids.dtype, np.integer):
            raise TypeError("sampled_ids entries must be integers")
        if offs.size and not np.issubdtype(offs.dtype, np.integer):
            # a float offsets array would silently truncate before the
            # monotonicity check - same policy as the ids themselves
            raise TypeError("ids_offsets entries must be integers")
        ids = ids.astype(np.int64, copy=False)
        if ids.size and (ids.min() < 0 or ids.max() >= n):
            raise ValueError(f"sampled_ids values must be in [0, {n})")
        return ids, offs.astype(np.int64, copy=False)
    if isinstance(sampled_ids, (list, tuple)):
        if len(sampled_ids) != rows:
            raise ValueError("sampled_ids must have one entry per row")
        flat = []
        offs = [0]
        for row_ids in sampled_ids:
            row = np.asarray(row_ids)
            if row.size and not np.issubdtype(row.dtype, np.integer):
                raise TypeError("sampled_ids entries must be integers")
            flat.extend(int(i) for i in row)
            offs.append(len(flat))
        ids = np.asarray(flat, dtype=np.int64)
        if ids.size and (ids.min() < 0 or ids.max() >= n):
            raise ValueError(f"sampled_ids values must be in [0, {n})")
        return ids, np.asarray(offs, dtype=np.int64)
    arr = sampled_ids
    if _is_torch(arr):
        arr = arr.detach().cpu().numpy()
    arr = np.asarray(arr)
    if arr.ndim == 2:
        if arr.shape[0] != rows:
            raise ValueError("sampled_ids must have one entry per row")
        if arr.size and not np.issubdtype(arr.dtype, np.integer):
            raise TypeError("sampled_ids entries must be integers")
        if arr.size and (arr.min() < 0 or arr.max() >= n):
            raise ValueError(f"sampled_ids values must be in [0, {n})")
        m = arr.shape[1]
        return (np.ascontiguousarray(arr, dtype=np.int64).reshape(-1),
                np.arange(rows + 1, dtype=np.int64) * m)
    raise ValueError("sampled_ids must be per-row sequences, a 2-D "
                     "array, or flat ids plus ids_offsets")


def decode_step_batched(logits, sampled_ids, penalty=1.0, *, p=0.9,
                        temperature=1.0, seeds=None, ids_offsets=None,
                        cuda=False):
    """Fused decode step for a batch of rows (v1.5).

    ``logits`` is 2-D ``[rows, vocab]`` (contiguous, float32). Every
    row runs the exact ``decode_step`` pipeline - CTRL-style repetition
    penalty over that row's history, then the temperature scale, then
    nucleus sampling - and the call returns one token id per row
    (int64 array / torch tensor on CPU; the host readback is inherent
    to the widening loop).

    ``sampled_ids`` carries the per-row histories: a ragged sequence
    of per-row sequences (list of lists), a 2-D integer array (every
    row contributes ALL its columns - pad rows yourself or use the
    ragged forms), or a flat 1-D integer array plus ``ids_offsets``
    (rows + 1 non-decreasing entries starting at 0). Values must lie
    in ``[0, vocab)``. ``penalty`` > 0 (1.0 or empty histories disable
    the bitmap entirely), ``p`` in (0, 1], temperature > 0.

    ``seeds`` is one non-negative integer per row; ``None`` defaults
    to ``0..rows-1``. Deterministic per (row, seed); not CUDA-graph
    capturable. Each row's token matches the single-row ``decode_step``
    up to the documented __expf/atomic-order ulp boundary.
    """
    if not penalty > 0.0:
        raise ValueError("penalty must be > 0")
    if not 0.0 < p <= 1.0:
        raise ValueError("p must be in (0, 1]")
    if not temperature > 0.0:
        raise ValueError("temperature must be > 0")
    path = _device_path(logits, cuda)
    if path == "torch-cuda":
        _check_torch_f32(logits, "logits")
        if logits.ndim != 2:
            raise ValueError("logits must be 2-D [rows, vocab]")
        rows, n = logits.shape
        ids, offs = _batch_ids_arg(sampled_ids, ids_offsets, rows, n)
        s = _batch_seeds(seeds, rows, "seeds")
        toks = _fusedtok.decode_step_batched_launch(
            logits.data_ptr(), rows, n, ids, offs, penalty, p,
            temperature, s, _cuda_stream())
        return torch.from_numpy(np.asarray(toks, dtype=np.int64))
    arr = _as_numpy(logits, "logits")
    if arr.ndim != 2:
        raise ValueError("logits must be 2-D [rows, vocab]")
    rows, n = arr.shape
    ids, offs = _batch_ids_arg(sampled_ids, ids_offsets, rows, n)
    s = _batch_seeds(seeds, rows, "seeds")
    if rows == 0:
        out = np.empty(0, dtype=np.int64)
    else:
        call = (_fusedtok.decode_step_batched if path == "staged"
                else _fusedtok.decode_step_batched_cpu)
        out = np.asarray(call(arr, rows, n, ids, offs, penalty, p,
                              temperature, s), dtype=np.int64)
    return _numpy_to_torch_like(out) if _is_torch(logits) else out
