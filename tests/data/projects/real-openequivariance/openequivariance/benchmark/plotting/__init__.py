from openequivariance.benchmark.plotting.plot_uvu import plot_uvu
from openequivariance.benchmark.plotting.plot_uvw import plot_uvw
from openequivariance.benchmark.plotting.plot_roofline import plot_roofline
from openequivariance.benchmark.plotting.plot_convolution import plot_convolution
from openequivariance.benchmark.plotting.plot_double_backward import (
    plot_double_backward,
)
from openequivariance.benchmark.plotting.plot_layout import plot_layout

__all__ = [
    "plot_uvu",
    "plot_uvw",
    "plot_roofline",
    "plot_convolution",
    "plot_double_backward",
    "plot_layout",
]
