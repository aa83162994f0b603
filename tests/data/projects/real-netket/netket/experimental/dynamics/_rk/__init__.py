from ._solver import Euler, Heun, Midpoint, RK4, RK12, RK23, RK45
