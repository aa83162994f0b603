from .objective import squim_objective_base, squim_objective_model, SquimObjective
from .subjective import squim_subjective_base, squim_subjective_model, SquimSubjective

__all__ = [
    "squim_objective_base",
    "squim_objective_model",
    "squim_subjective_base",
    "squim_subjective_model",
    "SquimObjective",
    "SquimSubjective",
]
