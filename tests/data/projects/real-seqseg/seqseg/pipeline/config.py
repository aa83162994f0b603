"""YAML config loading for pipelines (delegates to config_models)."""

from seqseg.config_models import load_yaml_config

__all__ = ("load_yaml_config",)
