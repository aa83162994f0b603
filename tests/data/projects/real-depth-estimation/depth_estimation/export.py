"""ONNX export for depth estimation models.

Usage::

    from depth_estimation import AutoDepthModel
    from depth_estimation.export import export_onnx

    model = AutoDepthModel.from_pretrained("depth-anything-v2-vitb")
    export_onnx(model, "depth_anything_v2_vitb.onnx", input_size=518, verify=True)

Known limitations:
    - ``pixel-perfect-depth`` (diffusion-based) samples internal random
      noise inside ``forward()``. Tracing freezes that call's result as a
      constant in the exported graph, so the ONNX model always reuses the
      same noise instead of sampling fresh randomness per call — the
      export "succeeds" but produces materially different output than the
      PyTorch model. Do not export this family for production use;
      ``verify=True`` will catch it (raises on the numerical mismatch).
    - ``zoedepth`` and ``marigold-dc`` wrap an opaque external pipeline
      (HuggingFace ``transformers``/``diffusers``) and round-trip through
      PIL/numpy inside ``forward()`` — confirmed not traceable at all:
      ``export_onnx()`` raises ``NotImplementedError`` immediately for
      these (``BaseDepthModel._onnx_exportable = False``) rather than
      attempting a doomed trace. ZoeDepth crashes mid-trace on a real bug
      in ``transformers``' image processor that only manifests under
      tracing; Marigold-DC's trace "succeeds" but produces a graph with
      zero declared inputs (a static replay of one memorized output).
    - ``moge`` (v1 and v2) recovers an optimal focal length/depth shift
      via a non-differentiable NumPy Gauss-Newton solve inside
      ``infer()``. That gets frozen as a constant at trace time, same
      category as the noise-freezing issue above — except it's
      deterministic, so ``verify=True`` (which reuses the same dummy
      input for both sides of the comparison) can't catch it the same
      way: the exported model will not recompute this correction for a
      *different* real image at deployment time, even though verify
      passes. Also requires ``moge``'s ``onnx_compatible_mode`` flag
      (set automatically here) to swap out several ops with no ONNX
      symbolic mapping at opset 17 (antialiased resize, in-place bitwise
      ops, autocast-induced mixed fp16/fp32 dtypes).
    - Models using ``F.scaled_dot_product_attention`` in their attention
      blocks (``depth-anything-v3-*``, ``pixel-perfect-depth``, ``moge``,
      ``vggt``, ``omnivggt``) require a torch version whose ONNX exporter
      has a symbolic mapping for that op — added in a later torch release
      than this package's declared floor (``torch>=2.0``). Exporting with
      ``torch==2.0.1`` raises
      ``torch.onnx.errors.UnsupportedOperatorError: ... 'aten::scaled_dot_product_attention' ...``
      regardless of ``opset_version``. Upgrade torch if you hit this.
      ``depth-anything-v2`` and ``depth-pro`` are unaffected (they use an
      older manual-attention implementation).
"""

import inspect
import logging
from pathlib import Path
from typing import Union

import torch

logger = logging.getLogger(__name__)

# torch.onnx.export's `dynamo` kwarg didn't exist before ~torch 2.5, and its
# *default* value flipped from False to True in later releases. Pin it to
# False (the legacy TorchScript-based tracer) whenever available, so export
# behavior is consistent across the whole torch>=2.0 support range rather
# than silently depending on whichever exporter a given torch version
# happens to default to.
_ONNX_EXPORT_SUPPORTS_DYNAMO = (
    "dynamo" in inspect.signature(torch.onnx.export).parameters
)


def export_onnx(
    model: torch.nn.Module,
    output_path: Union[str, Path],
    input_size: int = 518,
    opset_version: int = 17,
    dynamic_batch: bool = True,
    dynamic_spatial: bool = False,
    verify: bool = False,
    atol: float = 1e-3,
    rtol: float = 1e-3,
) -> Path:
    """Export a depth estimation model to ONNX.

    Args:
        model: A model with ``forward(pixel_values) -> (B, H, W)`` depth,
            e.g. any ``BaseDepthModel`` subclass. Must already be on its
            target device.
        output_path: Destination ``.onnx`` file path.
        input_size: Spatial size (H=W) of the dummy input used to trace the
            graph. Must be a size the model actually supports (e.g. a
            multiple of its ``config.patch_size``) — the model's own
            ``config.input_size`` is a safe default for most families.
        opset_version: ONNX opset version.
        dynamic_batch: Whether the exported graph supports a variable batch
            size at inference time.
        dynamic_spatial: Whether the exported graph supports variable H/W.
            Many of these architectures have constraints on spatial size
            (multiple-of-patch-size, or an internally fixed resolution like
            DepthPro) — leave this False unless you've confirmed the target
            model tolerates arbitrary input sizes. **Confirmed unsafe for
            DINOv2-backed families (depth-anything-v1/v2, moge, and
            others) even though it doesn't error at export time**: their
            position-embedding interpolation is skipped via a Python
            conditional (``if npatch == N and w == h: return pos_embed``)
            that the tracer resolves once, at trace time, against the
            square dummy input — baking in "skip interpolation" as a
            constant regardless of ``dynamic_axes``. The exported graph
            then only actually works at the exact square shape it was
            traced with; feeding it any other shape raises a broadcast
            shape error deep in the graph (e.g. ``right operand cannot
            broadcast on dim 1``), not a clear "dynamic_spatial
            unsupported" message. ``verify=True`` with the default square
            dummy input will not catch this — it only exercises the shape
            that already works.
        verify: If True, run the same input through both the PyTorch model
            and the exported ONNX graph (via onnxruntime, an optional
            dependency) and assert the outputs match within ``atol``/
            ``rtol``. Recommended — this is the only way to catch cases
            like the stochastic-model limitation described in this
            module's docstring.
        atol: Absolute tolerance for ``verify``.
        rtol: Relative tolerance for ``verify``.

    Returns:
        ``output_path``, as a ``Path``.
    """
    if not getattr(model, "_onnx_exportable", True):
        raise NotImplementedError(
            f"{type(model).__name__} wraps an opaque external pipeline "
            "(HuggingFace transformers/diffusers) and round-trips through "
            "PIL/numpy inside forward() — confirmed not traceable to ONNX "
            "(ZoeDepth crashes mid-trace on a transformers bug that only "
            "manifests under tracing; Marigold-DC 'succeeds' but produces "
            "a graph with zero declared inputs). Not supported."
        )

    output_path = Path(output_path)
    output_path.parent.mkdir(parents=True, exist_ok=True)

    model = model.eval()
    # Opt-in hook: some model families (confirmed: MoGe) expose an
    # onnx_compatible_mode flag that swaps out ops with no ONNX symbolic
    # mapping at the current opset (e.g. antialiased bicubic/bilinear
    # resize — aten::_upsample_{bicubic,bilinear}2d_aa) for an exportable
    # equivalent. Harmless no-op for every model that doesn't define it.
    if hasattr(model, "onnx_compatible_mode"):
        model.onnx_compatible_mode = True
    # Prefer BaseDepthModel.device: some families (DepthPro,
    # PixelPerfectDepth) have no parameters at all until their lazily-built
    # network exists, so next(model.parameters()) raises StopIteration
    # before the warm-up forward pass below has had a chance to run.
    if hasattr(model, "device"):
        device = model.device
    else:
        device = next(model.parameters()).device
    # Match the dummy input's dtype to the model's actual parameter dtype
    # (e.g. float16 after quantize_model(dtype="float16")) — always tracing
    # with float32 raised "Input type (float) and bias type (c10::Half)
    # should be the same" against a half-precision model. Same StopIteration
    # concern as the device lookup above for lazy-net families with no
    # parameters yet; float32 is the right fallback there since forward()
    # hasn't run yet to know any better, and it's what those models are
    # loaded in by default anyway.
    try:
        dtype = next(model.parameters()).dtype
    except StopIteration:
        dtype = torch.float32
    dummy_input = torch.randn(1, 3, input_size, input_size, device=device, dtype=dtype)

    # Warm-up: some model families (DepthPro, PixelPerfectDepth) lazily
    # build their network on the *first* forward() call rather than in
    # __init__. If that first call happens during tracing, the module's
    # parameter set changes mid-trace and torch.onnx.export raises
    # "state_dict changed after running the tracer". Running forward once
    # eagerly beforehand forces that lazy init to already be done, which is
    # harmless (idempotent) for every model family, not just the lazy ones.
    with torch.no_grad():
        model(dummy_input)

    dynamic_axes = {}
    if dynamic_batch or dynamic_spatial:
        in_axes = {}
        out_axes = {}
        if dynamic_batch:
            in_axes[0] = "batch"
            out_axes[0] = "batch"
        if dynamic_spatial:
            in_axes[2] = "height"
            in_axes[3] = "width"
            out_axes[1] = "height"
            out_axes[2] = "width"
        dynamic_axes = {"pixel_values": in_axes, "depth": out_axes}

    export_kwargs = {}
    if _ONNX_EXPORT_SUPPORTS_DYNAMO:
        export_kwargs["dynamo"] = False

    with torch.no_grad():
        torch.onnx.export(
            model,
            (dummy_input,),
            str(output_path),
            input_names=["pixel_values"],
            output_names=["depth"],
            opset_version=opset_version,
            dynamic_axes=dynamic_axes or None,
            **export_kwargs,
        )

    # Some model families (confirmed: marigold-dc) convert pixel_values to
    # PIL/numpy *inside* forward() before doing anything traceable with it —
    # the tracer then has no traced op depending on the actual input tensor,
    # so torch.onnx.export "succeeds" but silently produces a graph with
    # zero declared inputs: a static replay of one memorized output,
    # regardless of what's fed to it at inference time. That's a materially
    # different (and worse) failure than the documented frozen-random-noise
    # limitation below — it's not merely inaccurate, the exported model is
    # unusable for any image but the one it happened to trace with. Catch
    # it here with a clear error rather than letting callers discover it via
    # a confusing IndexError out of onnxruntime, or silently ship it.
    import onnx as _onnx

    graph_inputs = _onnx.load(str(output_path)).graph.input
    if len(graph_inputs) == 0:
        raise RuntimeError(
            f"Exported ONNX graph for {type(model).__name__} has zero "
            "declared inputs — the model likely converts its input tensor "
            "to PIL/numpy inside forward() before any traceable op uses "
            "it (confirmed for marigold-dc), so tracing disconnects the "
            "graph from the actual input entirely. The resulting .onnx "
            "file would just replay one memorized output regardless of "
            "what image it's given. This model family is not exportable "
            "to ONNX with the current tracer-based approach."
        )

    logger.info("Exported ONNX model to %s", output_path)

    if verify:
        _verify_onnx_export(
            model, output_path, dummy_input=dummy_input, atol=atol, rtol=rtol
        )

    return output_path


def _verify_onnx_export(
    model: torch.nn.Module,
    onnx_path: Union[str, Path],
    dummy_input: torch.Tensor,
    atol: float = 1e-3,
    rtol: float = 1e-3,
) -> None:
    """Run ``dummy_input`` through both PyTorch and the exported ONNX graph
    and assert the outputs match. Raises ImportError if onnxruntime (an
    optional dependency, not required for export itself) isn't installed.
    """
    try:
        import numpy as np
        import onnxruntime as ort
    except ImportError as e:
        raise ImportError(
            "verify=True requires the optional 'onnxruntime' package: "
            "pip install onnxruntime"
        ) from e

    # cuDNN's TF32 mode (default-on for Ampere+ GPUs) trades precision for
    # speed on conv/matmul — confirmed this alone can push a real
    # pretrained+pruned model's max output diff to ~0.19 (vs ~8e-5 with it
    # off), dwarfing the default 1e-3 tolerance and having nothing to do
    # with actual export fidelity. onnxruntime's CPU execution provider
    # always computes in full FP32, so compare like-for-like: disable TF32
    # for this one comparison forward pass, then restore the caller's
    # setting exactly as it was.
    prev_tf32 = torch.backends.cudnn.allow_tf32
    torch.backends.cudnn.allow_tf32 = False
    try:
        with torch.no_grad():
            torch_out = model(dummy_input).cpu().numpy()
    finally:
        torch.backends.cudnn.allow_tf32 = prev_tf32

    sess = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    input_name = sess.get_inputs()[0].name
    onnx_out = sess.run(None, {input_name: dummy_input.cpu().numpy()})[0]

    np.testing.assert_allclose(
        torch_out,
        onnx_out,
        atol=atol,
        rtol=rtol,
        err_msg=(
            "ONNX export output does not match PyTorch output. If this "
            "model samples random noise inside forward() (e.g. a "
            "diffusion-based family like pixel-perfect-depth or "
            "marigold-dc), this is expected — tracing freezes that "
            "noise as a constant. See depth_estimation.export's module "
            "docstring."
        ),
    )
    logger.info("ONNX export verified: matches PyTorch within atol=%s rtol=%s", atol, rtol)
