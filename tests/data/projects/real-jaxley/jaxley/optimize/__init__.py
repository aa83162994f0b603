# This file is part of Jaxley, a differentiable neuroscience simulator. Jaxley is
# licensed under the Apache License Version 2.0, see <https://www.apache.org/licenses/>

from jaxley.optimize.optimizer import TypeOptimizer
from jaxley.optimize.transforms import ParamTransform
