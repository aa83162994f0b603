"""Inject, save, and load low-rank adapters on PyTorch modules."""

from __future__ import annotations

import copy
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, cast

import torch

from .layers import (
    CheriParallelDepthwiseAdapter,
    CheriPostBlockAdapter,
    LowRankConv1dAdapter,
    LowRankLinearAdapter,
)

ADAPTER_FORMAT_VERSION = 1
DEFAULT_ADAPTER_ALPHA = 8.0

BPNet_TARGETS = {
    "iconv": ["iconv"],
    "rconvs": ["rconvs.*"],
    "fconv": ["fconv"],
    "linear": ["linear"],
}

BPNet_PRESETS = {
    "profile_only": ["fconv"],
    "count_only": ["linear"],
    "body_only": ["iconv", "rconvs"],
    "heads_only": ["fconv", "linear"],
    "all_conv": ["iconv", "rconvs", "fconv"],
    "all": ["iconv", "rconvs", "fconv", "linear"],
    "rconvs+heads": ["rconvs", "fconv", "linear"],
}

Cherimoya_TARGETS = {
    "iconv": ["iconv"],
    "blocks": ["blocks.*"],
    "fconv": ["fconv"],
    "linear": ["linear"],
    "heads": ["fconv", "linear"],
}

Cherimoya_PRESETS = {
    "heads_only": ["heads"],
    "all_postblock": ["blocks", "heads"],
    "late_postblock": ["blocks.-4:", "heads"],
    "early_postblock": ["blocks.:3", "heads"],
    "mid_depthwise": ["blocks.2:6", "heads"],
}

_ADAPTER_TYPES = (
    LowRankConv1dAdapter,
    LowRankLinearAdapter,
    CheriPostBlockAdapter,
    CheriParallelDepthwiseAdapter,
)

# Backward-compatible public names from the handoff implementation.
ADAPTER_PRESETS = BPNet_PRESETS
BASE_TARGETS = set(BPNet_TARGETS)


@dataclass(frozen=True)
class AdapterConfig:
    """Configuration used to inject low-rank adapters."""

    targets: tuple[str, ...]
    conv_rank: int = 16
    linear_rank: int = 4
    conv_scale: float | None = None
    linear_scale: float | None = None
    dropout: float = 0.0
    architecture: str | None = "bpnet"
    block_rank: int = 8
    block_scale: float | None = None
    block_adapter: str = "postblock"


def resolve_adapter_targets(
    targets: str | Iterable[str],
    module: torch.nn.Module | None = None,
    *,
    architecture: str | None = "bpnet",
) -> list[str]:
    """Resolve target tokens to explicit module paths.

    Direct module paths are accepted as-is. When ``architecture="bpnet"``,
    convenience names such as ``heads_only`` and ``rconvs`` expand to BPNet
    module paths. Wildcard paths like ``rconvs.*`` are expanded when ``module``
    is provided.
    """
    raw_targets = _coerce_targets(targets)
    resolved_patterns: list[str] = []

    for target in raw_targets:
        for token in target.split(","):
            token = token.strip()
            if not token:
                continue
            for subtoken in _split_target_token(token, architecture=architecture):
                for pattern in _expand_target_token(subtoken, architecture=architecture):
                    if pattern not in resolved_patterns:
                        resolved_patterns.append(pattern)

    if module is None:
        return resolved_patterns
    return _expand_wildcard_paths(module, resolved_patterns)


def _resolve_adapter_plan(
    targets: str | Iterable[str],
    module: torch.nn.Module,
    *,
    architecture: str | None,
    block_adapter: str,
    target_adapters: dict[str, str] | None = None,
) -> list[tuple[str, str]]:
    paths = resolve_adapter_targets(targets, module, architecture=architecture)
    if target_adapters is not None:
        return [(path, target_adapters.get(path, "auto")) for path in paths]
    if architecture is None or architecture.lower() != "cherimoya":
        return [(path, "auto") for path in paths]

    hints: dict[str, str] = {}
    raw_targets = _coerce_targets(targets)
    for target in raw_targets:
        for token in target.split(","):
            token = token.strip()
            if not token:
                continue
            for subtoken in _split_target_token(token, architecture=architecture):
                source_kind = _cherimoya_token_adapter_kind(subtoken, block_adapter)
                for pattern in _expand_target_token(subtoken, architecture=architecture):
                    if not pattern.startswith("blocks."):
                        continue
                    for path in _expand_wildcard_paths(module, [pattern]):
                        hints[path] = source_kind
    return [(path, hints.get(path, "auto")) for path in paths]


def inject_adapters(
    module: torch.nn.Module,
    targets: str | Iterable[str],
    conv_rank: int = 16,
    linear_rank: int = 4,
    conv_scale: float | None = None,
    linear_scale: float | None = None,
    dropout: float = 0.0,
    *,
    architecture: str | None = "bpnet",
    block_rank: int = 8,
    block_scale: float | None = None,
    block_adapter: str = "postblock",
    target_adapters: dict[str, str] | None = None,
) -> dict[str, Any]:
    """Attach low-rank adapters to selected ``Conv1d`` and ``Linear`` modules.

    ``targets`` may be explicit module paths, comma/plus-separated strings, or
    BPNet convenience shorthands when ``architecture="bpnet"``. The function
    mutates ``module`` in place and freezes all existing parameters first.
    """
    _validate_hyperparameters(conv_rank, linear_rank, dropout, block_rank, block_adapter)
    _freeze_module(module)

    plan = _resolve_adapter_plan(
        targets,
        module,
        architecture=architecture,
        block_adapter=block_adapter,
        target_adapters=target_adapters,
    )
    if not plan:
        raise ValueError("No adapter targets resolved")

    conv_scale = (
        (DEFAULT_ADAPTER_ALPHA / conv_rank) if conv_scale is None else float(conv_scale)
    )
    linear_scale = (
        (DEFAULT_ADAPTER_ALPHA / linear_rank) if linear_scale is None else float(linear_scale)
    )
    block_scale = (1.0 / block_rank) if block_scale is None else float(block_scale)
    injected: list[str] = []

    for path, adapter_kind in plan:
        parent, child_name, child = _get_parent_and_child(module, path)
        replacement: torch.nn.Module
        if isinstance(child, _ADAPTER_TYPES):
            raise ValueError(f"Module '{path}' is already an adapter")
        if adapter_kind == "postblock":
            replacement = CheriPostBlockAdapter(
                child, rank=block_rank, scale=block_scale, dropout=dropout
            )
        elif adapter_kind == "parallel_depthwise":
            replacement = CheriParallelDepthwiseAdapter(
                child, rank=block_rank, scale=block_scale, dropout=dropout
            )
        elif isinstance(child, torch.nn.Conv1d):
            replacement = LowRankConv1dAdapter(
                child, rank=conv_rank, scale=conv_scale, dropout=dropout
            )
        elif isinstance(child, torch.nn.Linear):
            replacement = LowRankLinearAdapter(
                child, rank=linear_rank, scale=linear_scale, dropout=dropout
            )
        else:
            raise TypeError(
                f"Module '{path}' must be torch.nn.Conv1d or torch.nn.Linear, "
                f"or a Cherimoya block selected with a block adapter, "
                f"got {type(child)!r}"
            )
        _set_child(parent, child_name, replacement)
        injected.append(path)

    config = AdapterConfig(
        targets=tuple(path for path, _adapter_kind in plan),
        conv_rank=int(conv_rank),
        linear_rank=int(linear_rank),
        conv_scale=float(conv_scale),
        linear_scale=float(linear_scale),
        dropout=float(dropout),
        architecture=architecture,
        block_rank=int(block_rank),
        block_scale=float(block_scale),
        block_adapter=block_adapter,
    )
    target_adapter_config = {
        path: adapter_kind for path, adapter_kind in plan if adapter_kind != "auto"
    }
    return {
        **asdict(config),
        "targets": list(config.targets),
        "target_adapters": target_adapter_config,
        "injected": injected,
        "layer_specs": module_specs(module),
    }


def module_specs(module: torch.nn.Module) -> dict[str, dict[str, Any]]:
    """Return manifest specs for all adapters under ``module``."""
    return {name: adapter.manifest() for name, adapter in iter_adapters(module)}


def iter_adapters(module: torch.nn.Module, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """Yield ``(path, adapter)`` pairs for all adapters under ``module``."""
    for name, child in module.named_children():
        path = f"{prefix}.{name}" if prefix else name
        if isinstance(child, _ADAPTER_TYPES):
            yield path, child
        yield from iter_adapters(child, path)


def adapter_parameters(module: torch.nn.Module) -> Iterator[torch.nn.Parameter]:
    """Yield trainable adapter parameters under ``module``."""
    for _name, adapter in iter_adapters(module):
        yield from (parameter for parameter in adapter.parameters() if parameter.requires_grad)


def count_adapter_parameters(module: torch.nn.Module) -> int:
    """Return the number of trainable adapter parameters under ``module``."""
    return sum(parameter.numel() for parameter in adapter_parameters(module))


def adapter_state_dict(module: torch.nn.Module) -> dict[str, torch.Tensor]:
    """Return only adapter branch weights, excluding frozen base weights."""
    state = {}
    for name, adapter in iter_adapters(module):
        for key, value in adapter.state_dict().items():
            if key.startswith("base."):
                continue
            state[f"{name}.{key}"] = value.detach().cpu()
    return state


def save_adapter_bundle(
    path: str | Path,
    model: torch.nn.Module,
    manifest: dict[str, Any],
    *,
    adapter_root: str | None = None,
) -> None:
    """Save a versioned adapter bundle.

    By default, adapters are expected directly on ``model``. Set
    ``adapter_root`` to a submodule path, such as ``"accessibility"``, when the
    adapters live on a child module of a larger model.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    manifest = copy.deepcopy(manifest)
    manifest.setdefault("format_version", ADAPTER_FORMAT_VERSION)
    root = _resolve_root(model, adapter_root)
    bundle = {
        "manifest": manifest,
        "state_dict": adapter_state_dict(root),
    }
    torch.save(bundle, path)


def load_adapter_bundle(
    model: torch.nn.Module,
    adapter_path: str | Path,
    map_location: str | torch.device = "cpu",
    *,
    adapter_root: str | None = None,
) -> tuple[torch.nn.Module, dict[str, Any]]:
    """Inject and load an adapter bundle into ``model``."""
    adapter_path = Path(adapter_path)
    bundle = torch.load(adapter_path, weights_only=False, map_location=map_location)
    manifest = bundle["manifest"]
    _validate_format_version(manifest)
    config = manifest["adapter_config"]
    root = _resolve_root(model, adapter_root)
    inject_adapters(
        root,
        targets=config["targets"],
        conv_rank=config["conv_rank"],
        linear_rank=config["linear_rank"],
        conv_scale=config["conv_scale"],
        linear_scale=config["linear_scale"],
        dropout=config.get("dropout", 0.0),
        architecture=config.get("architecture"),
        block_rank=config.get("block_rank", 8),
        block_scale=config.get("block_scale"),
        block_adapter=config.get("block_adapter", "postblock"),
        target_adapters=config.get("target_adapters"),
    )
    expected_specs = manifest.get("layer_specs")
    actual_specs = module_specs(root)
    if expected_specs is not None and expected_specs != actual_specs:
        raise RuntimeError(
            f"Adapter manifest does not match injected model layers for {adapter_path}"
        )
    _load_adapter_state_dict(root, bundle["state_dict"])
    return model, manifest


def load_model_with_adapter(
    base_model_path: str | Path,
    adapter_path: str | Path | None = None,
    map_location: str | torch.device = "cpu",
    *,
    adapter_root: str | None = None,
) -> tuple[torch.nn.Module, dict[str, Any] | None]:
    """Load a serialized model and optionally inject adapter weights."""
    model = torch.load(base_model_path, weights_only=False, map_location=map_location)
    if adapter_path is None:
        return model, None
    return load_adapter_bundle(
        model, adapter_path, map_location=map_location, adapter_root=adapter_root
    )


class _AccessibilityContainer(torch.nn.Module):
    def __init__(self, accessibility: torch.nn.Module) -> None:
        super().__init__()
        self.accessibility = accessibility


def load_accessibility_with_adapter(
    base_accessibility_path: str | Path,
    adapter_path: str | Path | None = None,
    map_location: str | torch.device = "cpu",
) -> tuple[torch.nn.Module, dict[str, Any] | None]:
    """Load a serialized accessibility model and optionally inject an adapter."""
    accessibility = torch.load(
        base_accessibility_path, weights_only=False, map_location=map_location
    )
    if adapter_path is None:
        return accessibility, None
    container = _AccessibilityContainer(accessibility)
    loaded_container, manifest = load_adapter_bundle(
        container,
        adapter_path,
        map_location=map_location,
        adapter_root="accessibility",
    )
    container = cast(_AccessibilityContainer, loaded_container)
    return container.accessibility, manifest


def _coerce_targets(targets: str | Iterable[str]) -> list[str]:
    if isinstance(targets, str):
        return [targets]
    return [str(target) for target in targets]


def _expand_target_token(token: str, *, architecture: str | None) -> list[str]:
    if architecture is None:
        return [token]
    architecture_name = architecture.lower()
    if architecture_name not in {"bpnet", "cherimoya"}:
        raise ValueError(f"Unsupported architecture preset namespace: {architecture!r}")

    if architecture_name == "cherimoya":
        if token in Cherimoya_PRESETS:
            expanded: list[str] = []
            for item in Cherimoya_PRESETS[token]:
                expanded.extend(_expand_target_token(item, architecture=architecture))
            return expanded
        if token in Cherimoya_TARGETS:
            return Cherimoya_TARGETS[token]
        if _looks_like_direct_path(token):
            return [token]

        valid = sorted(set(Cherimoya_TARGETS) | set(Cherimoya_PRESETS))
        raise ValueError(
            f"Unknown Cherimoya adapter target '{token}'. "
            f"Use a direct module path or one of: {valid}"
        )

    if token in BPNet_PRESETS:
        bpnet_expanded: list[str] = []
        for item in BPNet_PRESETS[token]:
            bpnet_expanded.extend(BPNet_TARGETS[item])
        return bpnet_expanded
    if token in BPNet_TARGETS:
        return BPNet_TARGETS[token]
    if _looks_like_direct_path(token):
        return [token]

    valid = sorted(set(BPNet_TARGETS) | set(BPNet_PRESETS))
    raise ValueError(
        f"Unknown BPNet adapter target '{token}'. Use a direct module path or one of: {valid}"
    )


def _split_target_token(token: str, *, architecture: str | None) -> list[str]:
    if architecture:
        architecture_name = architecture.lower()
        presets = BPNet_PRESETS if architecture_name == "bpnet" else Cherimoya_PRESETS
        targets = BPNet_TARGETS if architecture_name == "bpnet" else Cherimoya_TARGETS
        if token in presets or token in targets:
            return [token]
    return [part.strip() for part in token.split("+") if part.strip()]


def _looks_like_direct_path(token: str) -> bool:
    return "." in token or token.isidentifier()


def _expand_wildcard_paths(module: torch.nn.Module, patterns: Sequence[str]) -> list[str]:
    paths: list[str] = []
    for pattern in patterns:
        range_paths = _expand_modulelist_range(module, pattern)
        if range_paths is not None:
            for range_path in range_paths:
                if range_path not in paths:
                    paths.append(range_path)
            continue

        if "*" not in pattern:
            _get_submodule(module, pattern)
            if pattern not in paths:
                paths.append(pattern)
            continue

        matches = [
            name
            for name, _child in module.named_modules()
            if name and _path_matches(pattern, name)
        ]
        if not matches:
            raise ValueError(f"Adapter target pattern '{pattern}' did not match any modules")
        for match in matches:
            if match not in paths:
                paths.append(match)
    return paths


def _expand_modulelist_range(module: torch.nn.Module, pattern: str) -> list[str] | None:
    parent_path, _, slice_expr = pattern.rpartition(".")
    if not parent_path or ":" not in slice_expr:
        return None
    parent = _get_submodule(module, parent_path)
    if not isinstance(parent, torch.nn.ModuleList):
        raise TypeError(f"Adapter target range '{pattern}' requires a ModuleList parent")
    start_text, _, stop_text = slice_expr.partition(":")
    start = int(start_text) if start_text else None
    stop = int(stop_text) if stop_text else None
    indices = range(len(parent))[slice(start, stop)]
    return [f"{parent_path}.{index}" for index in indices]


def _cherimoya_token_adapter_kind(token: str, block_adapter: str) -> str:
    if token == "mid_depthwise":
        return "parallel_depthwise"
    if token in {"all_postblock", "late_postblock", "early_postblock"}:
        return "postblock"
    return block_adapter


def _path_matches(pattern: str, path: str) -> bool:
    pattern_parts = pattern.split(".")
    path_parts = path.split(".")
    if len(pattern_parts) != len(path_parts):
        return False
    return all(
        expected == "*" or expected == actual
        for expected, actual in zip(pattern_parts, path_parts, strict=False)
    )


def _freeze_module(module: torch.nn.Module) -> None:
    for parameter in module.parameters():
        parameter.requires_grad = False


def _validate_hyperparameters(
    conv_rank: int,
    linear_rank: int,
    dropout: float,
    block_rank: int,
    block_adapter: str,
) -> None:
    if conv_rank < 1:
        raise ValueError("conv_rank must be >= 1")
    if linear_rank < 1:
        raise ValueError("linear_rank must be >= 1")
    if block_rank < 1:
        raise ValueError("block_rank must be >= 1")
    if block_adapter not in {"postblock", "parallel_depthwise"}:
        raise ValueError("block_adapter must be 'postblock' or 'parallel_depthwise'")
    if dropout < 0 or dropout >= 1:
        raise ValueError("dropout must be in the interval [0, 1)")


def _resolve_root(model: torch.nn.Module, adapter_root: str | None) -> torch.nn.Module:
    if adapter_root is None or adapter_root == "":
        return model
    return _get_submodule(model, adapter_root)


def _get_parent_and_child(
    module: torch.nn.Module, path: str
) -> tuple[torch.nn.Module, str, torch.nn.Module]:
    if not path:
        raise ValueError("Adapter target path cannot be empty")
    parent_path, _, child_name = path.rpartition(".")
    parent = _get_submodule(module, parent_path) if parent_path else module
    if not child_name:
        raise ValueError(f"Invalid adapter target path: {path!r}")
    child = _get_child(parent, child_name)
    return parent, child_name, child


def _get_submodule(module: torch.nn.Module, path: str) -> torch.nn.Module:
    if not path:
        return module
    try:
        return module.get_submodule(path)
    except AttributeError as error:
        raise ValueError(f"Module path '{path}' does not exist") from error


def _get_child(module: torch.nn.Module, name: str) -> torch.nn.Module:
    if name.isdigit() and isinstance(module, (torch.nn.Sequential, torch.nn.ModuleList)):
        index = int(name)
        try:
            return module[index]
        except IndexError as error:
            raise ValueError(f"Module index '{name}' does not exist") from error
    if not hasattr(module, name):
        raise ValueError(f"Module path child '{name}' does not exist on {type(module)!r}")
    child = getattr(module, name)
    if not isinstance(child, torch.nn.Module):
        raise TypeError(f"Target '{name}' is not a torch.nn.Module")
    return child


def _set_child(
    parent: torch.nn.Module,
    child_name: str,
    replacement: torch.nn.Module,
) -> None:
    if child_name.isdigit() and isinstance(parent, (torch.nn.Sequential, torch.nn.ModuleList)):
        parent[int(child_name)] = replacement
    else:
        setattr(parent, child_name, replacement)


def _load_adapter_state_dict(
    module: torch.nn.Module,
    state_dict: dict[str, torch.Tensor],
) -> None:
    missing: list[str] = []
    unexpected = set(state_dict)
    for name, adapter in iter_adapters(module):
        prefix = f"{name}."
        local = {
            key[len(prefix) :]: value
            for key, value in state_dict.items()
            if key.startswith(prefix)
        }
        unexpected.difference_update(f"{prefix}{key}" for key in local)
        result = adapter.load_state_dict(local, strict=False)
        missing.extend(
            f"{prefix}{key}" for key in result.missing_keys if not key.startswith("base.")
        )

    if missing or unexpected:
        raise RuntimeError(
            "Adapter state mismatch: "
            f"missing={sorted(missing)}, unexpected={sorted(unexpected)}"
        )


def _validate_format_version(manifest: dict[str, Any]) -> None:
    version = manifest.get("format_version", ADAPTER_FORMAT_VERSION)
    if version != ADAPTER_FORMAT_VERSION:
        raise RuntimeError(
            f"Unsupported adapter format_version={version!r}; "
            f"expected {ADAPTER_FORMAT_VERSION}"
        )
