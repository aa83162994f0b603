from .core import Core
from .environment import Environment, MDPInfo
from .agent import Agent
from .serialization import Serializable
from .logger import Logger

import mushroom_rl.environments

__all__ = ['Core', 'Environment', 'MDPInfo', 'Agent', 'Serializable', 'Logger']
