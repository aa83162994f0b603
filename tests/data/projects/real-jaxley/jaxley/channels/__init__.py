# This file is part of Jaxley, a differentiable neuroscience simulator. Jaxley is
# licensed under the Apache License Version 2.0, see <https://www.apache.org/licenses/>

from jaxley.channels.channel import Channel  # isort: skip
from jaxley.channels.hh import HH
from jaxley.channels.non_capacitive.adex import AdEx
from jaxley.channels.non_capacitive.izhikevich import Izhikevich
from jaxley.channels.non_capacitive.rate import Rate
from jaxley.channels.non_capacitive.spike import Fire
from jaxley.channels.pospischil import CaL, CaT, K, Km, Leak, Na

__all__ = [
    "Channel",
    "HH",
    "AdEx",
    "Izhikevich",
    "Rate",
    "Fire",
    "CaL",
    "CaT",
    "K",
    "Km",
    "Leak",
    "Na",
]
