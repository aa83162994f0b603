# This file is part of Jaxley, a differentiable neuroscience simulator. Jaxley is
# licensed under the Apache License Version 2.0, see <https://www.apache.org/licenses/>

from jaxley.modules.base import Module
from jaxley.modules.branch import Branch
from jaxley.modules.cell import Cell
from jaxley.modules.compartment import Compartment
from jaxley.modules.network import Network

__all__ = ["Module", "Branch", "Cell", "Compartment", "Network"]
