from rl4co.models.zoo.glop.model import GLOP
from rl4co.models.zoo.glop.policy import GLOPPolicy
