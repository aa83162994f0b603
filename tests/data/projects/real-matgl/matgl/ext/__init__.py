"""Interfaces to external packages such as Pymatgen and the Atomic Simulation Environment."""
