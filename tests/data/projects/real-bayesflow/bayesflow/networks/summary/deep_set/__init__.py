from .deep_set import DeepSet
