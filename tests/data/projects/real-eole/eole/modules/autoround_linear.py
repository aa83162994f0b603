import torch
from eole.modules.quantization_selection import is_selected, is_excluded
import torch.nn as nn
from torch.cuda import is_available as cuda_is_available
from eole.ops import _CPP_OPS_AVAILABLE


def replace_autoround_linear(
    model,
    module_to_convert=[],
    w_bit=4,
    group_size=128,
    packing_format="auto_round:auto_gptq",
    sym=True,
    module_to_not_convert=[],
    prefix="",
):
    """Replace nn.Linear layers with AutoRound QuantLinear for quantized inference.

    The packing_format determines how qzeros are stored:
    - 'gptq' in packing_format: qzeros stored as (zero_point - 1) per GPTQ convention.
    - Otherwise: qzeros stored directly (direct zero-point).

    Selection accepts bare names, model-root paths, and shell-style globs.
    prefix identifies the model-root path when replacing a subtree.

    Backend preference order:
    1. Marlin CUDA kernels (requires CUDA + eole._ops, sym=True only) — fastest
    2. Triton GPU kernels (requires CUDA + triton) — fast GPU kernels
    3. PyTorch fallback — works everywhere

    For Marlin layers, call post_init_autoround_linear(model) after loading the weights
    to repack them into the Marlin-optimized layout.

    Marlin validates layer dimensions at construction time and raises NotImplementedError
    for unsupported shapes (e.g. out_features not divisible by 64).  Such layers are
    replaced with the pure-PyTorch backend, which has no CUDA kernel shape requirements.

    module_to_not_convert: list of module names (direct children) whose entire subtree
        should be skipped.  Use this for parent modules that were kept in fp16 during
        quantization (e.g. ``shared_experts`` in MoE models).
    """
    use_gptq_zp = "gptq" in packing_format
    QuantLinear, use_marlin = _get_autoround_quant_linear_cls(use_gptq_zp, sym)

    # Lazily computed fallback class for layers that Marlin rejects.
    fallback_cls = None

    def _get_fallback():
        nonlocal fallback_cls
        if fallback_cls is None:
            fallback_cls, _ = _get_autoround_quant_linear_cls(use_gptq_zp, force_pytorch=True)
        return fallback_cls

    for name, module in model.named_children():
        module_path = prefix + "." + name if prefix else name
        if is_excluded(module_path, module_to_not_convert):
            continue  # skip entire subtree — this parent was kept in fp16
        if len(list(module.children())) > 0:
            replace_autoround_linear(
                module,
                module_to_convert,
                w_bit,
                group_size,
                packing_format,
                sym,
                module_to_not_convert,
                module_path,
            )

        selected = is_selected(module_path, module_to_convert, module_to_not_convert)
        if isinstance(module, nn.Linear) and selected:
            if use_marlin:
                try:
                    new_module = QuantLinear(
                        bits=w_bit,
                        group_size=group_size,
                        desc_act=False,
                        sym=sym,
                        in_features=module.in_features,
                        out_features=module.out_features,
                        bias=module.bias is not None,
                    )
                except NotImplementedError:
                    # Marlin rejected this layer's dimensions — use PyTorch fallback.
                    new_module = _get_fallback()(
                        bits=w_bit,
                        group_size=group_size,
                        infeatures=module.in_features,
                        outfeatures=module.out_features,
                        bias=module.bias is not None,
                    )
            else:
                new_module = QuantLinear(
                    bits=w_bit,
                    group_size=group_size,
                    infeatures=module.in_features,
                    outfeatures=module.out_features,
                    bias=module.bias is not None,
                )
            new_module.checkpoint_weight_layout = "gptq"
            model._modules[name] = new_module
    return model


def _get_module_device(module):
    """Get device from parameters or buffers, whichever is available."""
    try:
        return next(module.parameters()).device
    except StopIteration:
        pass
    try:
        return next(module.buffers()).device
    except StopIteration:
        return torch.device("cpu")


def post_init_autoround_linear(model, defer_kvq=False):
    """Call post_init() on all AutoRound QuantLinear modules in the model.

    Required for Marlin layers: repacks GPTQ-format weights into Marlin's optimized
    memory layout and pre-allocates the workspace buffer.  No-op for other backends.
    Must be called after weights have been loaded and the model moved to CUDA.
    With defer_kvq, only fusion-capable self-attention projections wait for
    inference setup; finalize_deferred_autoround_linear initializes them there.
    """
    deferred_names = set()
    if defer_kvq:
        from eole.modules.multi_headed_attn import SelfMHA

        if isinstance(model, SelfMHA):
            deferred_names = {"linear_keys", "linear_values", "linear_query"}
    for name, module in model.named_children():
        if name in deferred_names and getattr(module, "supports_kvq_fusion", False):
            module._kvq_post_init_deferred = True
            continue
        module_cls = type(module)
        module_pkg = getattr(module_cls, "__module__", "") or ""
        if hasattr(module, "post_init") and len(list(module.children())) == 0:
            module.post_init()
            # Eagerly move wf to the correct device for torch fallback layers.
            # Their forward() does this lazily which breaks CUDAGraphs.
            if hasattr(module, "wf") and hasattr(module, "qzeros"):
                if module.wf.device != module.qzeros.device:
                    module.wf = module.wf.to(module.qzeros.device)

            # triton fallback (qlinear_tritonv2_zp): lazy g_idx creation
            if hasattr(module, "infeatures") and hasattr(module, "group_size"):
                module_pkg = getattr(type(module), "__module__", "") or ""
                if "triton" in module_pkg and not hasattr(module, "g_idx"):
                    device = _get_module_device(module)
                    module.g_idx = torch.tensor(
                        [i // module.group_size for i in range(module.infeatures)],
                        dtype=torch.int32,
                        device=device,
                    )
        else:
            # Recurse into containers that are not themselves QuantLinear modules.
            post_init_autoround_linear(module, defer_kvq=defer_kvq)

        # MoE: eagerly stack quantized expert weights before CUDAGraphs capture
        if hasattr(module, "_maybe_init_quant_weights") and hasattr(module, "experts"):
            device = _get_module_device(module)
            # Determine dtype from the first expert weight we can find
            dtype = torch.float16
            for e in module.experts:
                for proj_name in ("gate_up_proj", "down_proj"):
                    proj = getattr(e, proj_name, None)
                    if proj is not None and hasattr(proj, "scales"):
                        dtype = proj.scales.dtype
                        break
            module._maybe_init_quant_weights(device, dtype)


def _get_autoround_quant_linear_cls(use_gptq_zp: bool, sym: bool = True, force_pytorch: bool = False):
    """Return the best available QuantLinear class for AutoRound inference.

    Preference order:
    1. Marlin CUDA kernels (requires CUDA + eole._ops, sym=True only) — fastest
    2. Triton kernels (requires CUDA + triton) — fast GPU kernels
    3. PyTorch fallback — works everywhere

    Args:
        use_gptq_zp: use GPTQ-style zero-point packing.
        sym: when True, try Marlin first.
        force_pytorch: skip all CUDA-kernel backends; return PyTorch directly.

    Returns:
        (QuantLinear class, use_marlin: bool)
    """
    if not force_pytorch and cuda_is_available():
        if sym and _CPP_OPS_AVAILABLE:
            from eole.modules.marlin_linear import MarlinQuantLinear

            return MarlinQuantLinear, True
        try:
            if use_gptq_zp:
                from auto_round_extension.triton.qlinear_tritonv2_zp import QuantLinear
            else:
                from auto_round_extension.triton.qlinear_tritonv2 import QuantLinear
            return QuantLinear, False
        except ImportError:
            pass
    # Fallback to pure PyTorch kernels
    try:
        if use_gptq_zp:
            from auto_round_extension.torch.qlinear_torch_zp import QuantLinear
        else:
            from auto_round_extension.torch.qlinear_torch import QuantLinear
        return QuantLinear, False
    except ImportError:
        raise ImportError("Install auto-round to use autoround quantized models")


def fuse_autoround_kvq(projections):
    """Return (handled, fused) without importing Marlin for other backends."""
    if not any(getattr(module, "supports_kvq_fusion", False) for module in projections):
        return False, None
    from eole.utils.logging import logger

    try:
        from eole.modules.marlin_linear import MarlinQuantLinear

        fused = MarlinQuantLinear.fuse(projections)
    except (ImportError, ValueError) as error:
        logger.warning("Skipping Marlin KVQ fusion: %s", error)
        return True, None
    fused._kvq_post_init_deferred = any(getattr(module, "_kvq_post_init_deferred", False) for module in projections)
    return True, fused


def finalize_deferred_autoround_linear(model):
    """Initialize only projections deferred for inference-time KVQ fusion."""
    for module in model.modules():
        if getattr(module, "_kvq_post_init_deferred", False):
            module.post_init()
            module._kvq_post_init_deferred = False
