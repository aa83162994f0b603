from .circuit_modules import CircuitModule, ProbabilisticCircuitModule

__all__ = [
    "CircuitModule",
    "ProbabilisticCircuitModule",
]