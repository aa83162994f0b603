__all__ = ["RK_rotor"]

from .rk_rotor import RK_rotor 
