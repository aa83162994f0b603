"""Strict YAML configuration.

Paths written in the YAML file are relative to that file. Paths passed on the
command line are relative to the working directory, because that is where the
user typed them.
"""
from dataclasses import fields
from pathlib import Path
import yaml
from .config import TrainConfig

FIELDS = {f.name for f in fields(TrainConfig)}
# PyYAML reads scientific notation without a decimal point as text.
NUMERIC = ("learning_rate", "epochs", "warmup_ratio", "weight_decay", "lora_dropout")
PATH_KEYS = ("output_dir", "resume_from_checkpoint")
SOURCE_KEYS = ("model_name", "dataset", "eval_dataset")


class ConfigLoader(yaml.SafeLoader):
    pass


def _mapping(loader, node, deep=False):
    result = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if not isinstance(key, str):
            raise ValueError("Configuration keys must be strings")
        if key in result:
            raise ValueError(f"Duplicate configuration key: {key}")
        result[key] = loader.construct_object(value_node, deep=deep)
    return result


ConfigLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)


def _did_you_mean(key):
    import difflib

    close = difflib.get_close_matches(key, FIELDS, n=2, cutoff=0.6)
    return f". Did you mean: {', '.join(close)}?" if close else ""


def parse_override(text):
    """'key=value' from --set, with the value read as a YAML scalar."""
    key, separator, raw = str(text).partition("=")
    key = key.strip().replace("-", "_")
    if not separator or not key:
        raise ValueError(f"Expected key=value, got: {text}")
    if key not in FIELDS:
        raise ValueError(f"Unknown configuration key: {key}{_did_you_mean(key)}")
    try:
        value = yaml.safe_load(raw) if raw.strip() else None
    except yaml.YAMLError as exc:
        raise ValueError(f"{key}: {exc}") from exc
    return key, value


def _coerce_numbers(values):
    for key in NUMERIC:
        if isinstance(values.get(key), str):
            try:
                values[key] = float(values[key])
            except ValueError as exc:
                raise ValueError(f"{key} must be numeric") from exc
    return values


def _resolve(value, base):
    return str((base / Path(value).expanduser()).resolve())


def _is_local_source(key, value, base):
    return value.startswith((".", "/", "~")) or (base / value).exists() or (
        key != "model_name" and value.endswith((".json", ".jsonl", ".parquet")))


def load_config(filename, overrides=None):
    """Read a YAML file, apply command-line overrides, and resolve local paths."""
    path = Path(filename).expanduser().resolve()
    if not path.is_file():
        raise FileNotFoundError(f"Configuration file not found: {filename}")
    try:
        values = yaml.load(path.read_text(encoding="utf-8"), Loader=ConfigLoader)
    except yaml.YAMLError as exc:
        raise ValueError(f"Invalid YAML in {path.name}: {exc}") from exc
    if not isinstance(values, dict):
        raise ValueError("Configuration must be a YAML mapping")
    overrides = dict(overrides or {})
    for source in (values, overrides):
        for key in sorted(set(source) - FIELDS):
            raise ValueError(f"Unknown configuration key: {key}{_did_you_mean(key)}")
    merged = _coerce_numbers({**values, **overrides})
    try:
        config = TrainConfig(**merged)
    except TypeError as exc:
        raise ValueError(f"Invalid configuration: {exc}") from exc

    working = Path.cwd()
    for key in PATH_KEYS:
        if getattr(config, key):
            setattr(config, key, _resolve(getattr(config, key), working if key in overrides else path.parent))
    for key in SOURCE_KEYS:
        value = getattr(config, key)
        base = working if key in overrides else path.parent
        if value and _is_local_source(key, value, base):
            setattr(config, key, _resolve(value, base))
    return config


def save_config(config, filename):
    Path(filename).write_text(yaml.safe_dump(config.to_dict(), sort_keys=False, allow_unicode=True), encoding="utf-8")


def init_config(filename, values=None):
    """Write a starter YAML file. Never overwrites an existing one."""
    path = Path(filename).expanduser()
    defaults = {"model_name": "Qwen/Qwen2.5-1.5B-Instruct", "dataset": "./train.jsonl"}
    config = TrainConfig(**{**defaults, **(values or {})})
    with path.open("x", encoding="utf-8") as stream:
        stream.write("# Bengo configuration. Local paths are relative to this file.\n"
                     "# method: full | lora | qlora     see: bengo presets\n")
        yaml.safe_dump(config.to_dict(), stream, sort_keys=False, allow_unicode=True)
    return path
