__all__ = [
    "Parameter",
    "Mutable",
    "ModuleBase",
    "compile",
    "use_state",
    "vmap",
    "Agent",
    "Algorithm",
    "Problem",
    "Workflow",
    "Monitor",
]

from .components import Agent, Algorithm, Monitor, Problem, Workflow
from .module import ModuleBase, Mutable, Parameter, compile, use_state, vmap
