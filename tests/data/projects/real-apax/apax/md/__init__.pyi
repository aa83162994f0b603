from .ase_calc import ASECalculator
from .simulate import run_md

__all__ = ["run_md", "ASECalculator"]
