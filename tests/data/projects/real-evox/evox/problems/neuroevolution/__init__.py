__all__ = [
    "brax",
    "mujoco_playground",
    "supervised_learning",
    "VirtualProblem",
    "VirtualLoRAProblem",
]

from .virtual_problem import VirtualLoRAProblem, VirtualProblem
