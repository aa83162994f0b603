from .ir import Operation, Program, TensorSpec
from .frontend import (
    CapturedProgram,
    CompiledFunction,
    CompiledTrainingStep,
    capture,
    compile,
    compile_training,
)

__version__ = "0.2.0"

__all__ = [
    "TensorSpec",
    "Operation",
    "Program",
    "CapturedProgram",
    "CompiledFunction",
    "CompiledTrainingStep",
    "capture",
    "compile",
    "compile_training",
]
