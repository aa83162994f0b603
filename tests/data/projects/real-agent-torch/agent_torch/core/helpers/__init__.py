from agent_torch.core.helpers.general import *
from agent_torch.core.helpers.environment import *
from agent_torch.core.helpers.initializer import *
from agent_torch.core.helpers.soft import *
