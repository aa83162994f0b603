from mattersim.forcefield.potential import MatterSimCalculator, Potential

__all__ = ["MatterSimCalculator", "Potential"]
