# This file is part of Jaxley, a differentiable neuroscience simulator. Jaxley is
# licensed under the Apache License Version 2.0, see <https://www.apache.org/licenses/>

from jaxley.pumps.pump import Pump  # isort: skip
from jaxley.pumps.ca_pump import CaPump
from jaxley.pumps.faraday_electrolysis import CaFaradayConcentrationChange
from jaxley.pumps.nernstreversal import CaNernstReversal

__all__ = ["Pump", "CaPump", "CaFaradayConcentrationChange", "CaNernstReversal"]
