"""VRAM arithmetic for a planned run.

Every number here is an estimate built from the model shape and the run settings.
It assumes SDPA attention, one device and one process, which is what this release
supports. Kernel choice and allocator behaviour still move the real peak.
"""
import json
import re
from pathlib import Path

GB = 1024 ** 3

# Reference shapes used when only a parameter count is known.
SHAPES = [
    (0.5e9, 24, 896, 4864, 151936),
    (1.5e9, 28, 1536, 8960, 151936),
    (3e9, 36, 2048, 11008, 151936),
    (7e9, 32, 4096, 11008, 32000),
    (13e9, 40, 5120, 13824, 32000),
    (34e9, 48, 7168, 20480, 32000),
    (70e9, 80, 8192, 28672, 128256),
]


def _int(config, *names, default=None):
    for name in names:
        value = config.get(name)
        if isinstance(value, int) and value > 0:
            return value
    return default


def shape_from_config(config):
    """Read layer geometry from a Hugging Face config dict."""
    text = json.dumps(config.get("architectures") or []) + str(config.get("model_type", ""))
    inner = config.get("text_config") if isinstance(config.get("text_config"), dict) else {}
    source = {**config, **inner}
    hidden = _int(source, "hidden_size", "n_embd", "d_model")
    layers = _int(source, "num_hidden_layers", "n_layer", "num_layers")
    vocab = _int(source, "vocab_size", default=32000)
    if not hidden or not layers:
        return None
    heads = _int(source, "num_attention_heads", "n_head", default=max(1, hidden // 128))
    kv_heads = _int(source, "num_key_value_heads", "num_kv_heads", default=heads)
    intermediate = _int(source, "intermediate_size", "n_inner", "ffn_dim", default=4 * hidden)
    gated = str(source.get("hidden_act", "silu")).lower() in {"silu", "swish", "silu_and_mul", "geglu", "swiglu"}
    return {
        "hidden": hidden, "layers": layers, "vocab": vocab,
        "kv_dim": max(1, hidden * kv_heads // max(1, heads)),
        "intermediate": intermediate,
        "mlp_factor": 3 if gated else 2,
        "tied": bool(source.get("tie_word_embeddings", "gpt2" in text.lower())),
    }


def params_from_shape(shape):
    hidden, layers = shape["hidden"], shape["layers"]
    embedding = shape["vocab"] * hidden * (1 if shape["tied"] else 2)
    attention = 2 * hidden * hidden + 2 * hidden * shape["kv_dim"]
    mlp = shape["mlp_factor"] * hidden * shape["intermediate"]
    return embedding + layers * (attention + mlp)


def shape_for_params(params):
    """Closest reference geometry for a bare parameter count."""
    layers, hidden, intermediate, vocab = min(SHAPES, key=lambda row: abs(row[0] - params))[1:]
    return {"hidden": hidden, "layers": layers, "vocab": vocab, "kv_dim": hidden,
            "intermediate": intermediate, "mlp_factor": 3, "tied": False}


def params_from_name(name):
    match = re.search(r"(\d+(?:[.,]\d+)?)\s*[bB](?![a-zA-Z0-9])", str(name).replace("_", "-"))
    if match:
        return float(match.group(1).replace(",", ".")) * 1e9
    match = re.search(r"(\d{2,4})\s*[mM](?![a-zA-Z0-9])", str(name))
    return float(match.group(1)) * 1e6 if match else None


def profile(model_name, revision=None, params_billion=None, offline=False):
    """Return {params, shape, source}. Never raises on a missing network."""
    if params_billion:
        params = params_billion * 1e9
        return {"params": params, "shape": shape_for_params(params), "source": "manual"}
    local = Path(model_name) / "config.json"
    if local.is_file():
        try:
            shape = shape_from_config(json.loads(local.read_text(encoding="utf-8")))
        except (ValueError, OSError):
            shape = None
        if shape:
            return {"params": params_from_shape(shape), "shape": shape, "source": "local"}
    if not offline:
        remote = _hub_profile(model_name, revision)
        if remote:
            return remote
    params = params_from_name(model_name)
    if params:
        return {"params": params, "shape": shape_for_params(params), "source": "name"}
    return None


def _hub_profile(model_name, revision):
    try:
        from huggingface_hub import hf_hub_download, model_info
    except ImportError:
        return None
    shape = params = None
    try:
        path = hf_hub_download(model_name, "config.json", revision=revision)
        shape = shape_from_config(json.loads(Path(path).read_text(encoding="utf-8")))
    except Exception:
        shape = None
    try:
        totals = getattr(model_info(model_name, revision=revision), "safetensors", None)
        params = getattr(totals, "total", None)
        if params is None and isinstance(totals, dict):
            params = totals.get("total")
    except Exception:
        params = None
    if shape and not params:
        params = params_from_shape(shape)
    if params and not shape:
        shape = shape_for_params(params)
    return {"params": params, "shape": shape, "source": "hub"} if params and shape else None


def adapter_params(shape, rank):
    hidden, kv = shape["hidden"], shape["kv_dim"]
    per_layer = 4 * hidden + 2 * (hidden + kv) + shape["mlp_factor"] * (hidden + shape["intermediate"])
    return rank * per_layer * shape["layers"]


def breakdown(config, info):
    """Bytes per component for one training step."""
    shape, params = info["shape"], info["params"]
    precision = config.precision if config.precision != "auto" else ("fp32" if config.device == "cpu" else "bf16")
    compute = 4 if precision == "fp32" else 2
    embedding = shape["vocab"] * shape["hidden"] * (1 if shape["tied"] else 2)
    batch, length = config.batch_size, config.max_length

    if config.method == "qlora":
        # bnb keeps embeddings and the output head unquantized; 4-bit NF4 with
        # double quantization costs about 4.13 bits per quantized weight.
        weights = max(0.0, params - embedding) * (4.13 / 8) + embedding * compute
    elif config.method == "full":
        weights = params * 4
    else:
        weights = params * compute

    trainable = params if config.method == "full" else adapter_params(shape, config.lora_rank)
    optimizer_bytes = 2 if "8bit" in (config.optim or ("paged_adamw_8bit" if config.method == "qlora" else "")) else 8
    adapter = 0 if config.method == "full" else trainable * 4
    gradients = trainable * 4
    optimizer = trainable * optimizer_bytes

    tokens = batch * length
    if config.gradient_checkpointing:
        activations = shape["layers"] * tokens * shape["hidden"] * compute
        activations += tokens * (6 * shape["hidden"] + 3 * shape["intermediate"]) * compute
    else:
        activations = shape["layers"] * tokens * (10 * shape["hidden"] + 3 * shape["intermediate"]) * compute
    # Logits are materialized for the whole batch and upcast to fp32 for the loss.
    logits = tokens * shape["vocab"] * (compute + 4)

    parts = {"weights": weights, "adapter": adapter, "gradients": gradients,
             "optimizer": optimizer, "activations": activations, "logits": logits}
    subtotal = sum(parts.values())
    parts["overhead"] = 0.75 * GB + 0.06 * subtotal
    parts["total"] = subtotal + parts["overhead"]
    parts["trainable"] = trainable
    return parts


def verdict(total, vram_bytes):
    if not vram_bytes:
        return "unknown"
    if total <= 0.85 * vram_bytes:
        return "fits"
    return "tight" if total <= vram_bytes else "over"


def _clone(config, **changes):
    from .config import TrainConfig
    values = config.to_dict()
    values.update(changes)
    return TrainConfig(**values)


def suggestions(config, info, vram_bytes):
    """Greedily apply memory levers and report the ones that bring the run under budget."""
    if verdict(breakdown(config, info)["total"], vram_bytes) in ("fits", "tight", "unknown"):
        return [], True
    applied, current = [], config
    levers = []
    if current.method != "qlora" and current.device != "cpu":
        levers.append(({"method": "qlora"}, ("estimate.advice.qlora", {})))
    if not current.gradient_checkpointing:
        levers.append(({"gradient_checkpointing": True}, ("estimate.advice.checkpointing", {})))
    if current.batch_size > 1:
        levers.append(({"batch_size": 1}, ("estimate.advice.batch", {})))
    for length in (1024, 512, 256):
        if current.max_length > length:
            levers.append(({"max_length": length}, ("estimate.advice.length", {"value": length})))
    for rank in (16, 8, 4):
        if current.lora_rank > rank:
            levers.append(({"lora_rank": rank}, ("estimate.advice.rank", {"value": rank})))
    for changes, message in levers:
        try:
            candidate = _clone(current, **changes)
        except ValueError:
            continue
        current = candidate
        # One line per lever: a later step on the same key replaces the earlier one.
        applied = [item for item in applied if item[0] != message[0]] + [message]
        if verdict(breakdown(current, info)["total"], vram_bytes) != "over":
            return applied, True
    return applied, False


def detect_vram():
    """(bytes, name) for the visible CUDA device, or (None, None)."""
    try:
        import torch
    except ImportError:
        return None, None
    try:
        if not torch.cuda.is_available():
            return None, None
        index = torch.cuda.current_device()
        properties = torch.cuda.get_device_properties(index)
        return properties.total_memory, properties.name
    except Exception:
        return None, None
