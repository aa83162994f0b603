from .strategy import Strategy
from .uniform import UniformStrategy
from .uncertainty import UncertaintyStrategy
from .adversarial import AdversarialStrategy
