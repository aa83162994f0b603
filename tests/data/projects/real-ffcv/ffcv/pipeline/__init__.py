from .pipeline import Pipeline
from .pipeline_spec import PipelineSpec
from .compiler import Compiler

__all__ = ['Pipeline', 'PipelineSpec', 'Compiler']