from xaytune.utils.registry import Registry

__all__ = ["Registry"]
