from .net.neural_net import FCN, NetHFM
from .pinn_module import PINNModule
from .runge_kutta.runge_kutta import RungeKutta
