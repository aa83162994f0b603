from .registries import registry
from .pipeline import PipelineProtocol
