from xaytune.utils.registry import Registry

format_registry = Registry("format")
