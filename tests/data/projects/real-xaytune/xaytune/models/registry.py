from xaytune.utils.registry import Registry

model_registry = Registry("model")
