from rl4co.models.zoo.gfacs.model import GFACS
from rl4co.models.zoo.gfacs.policy import GFACSPolicy
