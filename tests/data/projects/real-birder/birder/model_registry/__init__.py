from birder.model_registry import manifest
from birder.model_registry.model_registry import Task
from birder.model_registry.model_registry import registry

__all__ = [
    "manifest",
    "Task",
    "registry",
]
