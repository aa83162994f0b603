"""Educational tools for advanced atmospheric dynamics and physics."""

from .graduate_tool import (
    GraduateAtmosphericDynamicsTool,
    ProblemScenario,
    SolutionStep,
)

__all__ = [
    "GraduateAtmosphericDynamicsTool",
    "ProblemScenario",
    "SolutionStep",
]
