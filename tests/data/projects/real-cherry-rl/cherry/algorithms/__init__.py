#!/usr/bin/env python3

from .arguments import AlgorithmArguments

# namespaces
from . import ppo
from . import a2c
from . import sac
from . import ddpg
from . import trpo
from . import drq
from . import drqv2

# classes
from .a2c import A2C
from .trpo import TRPO
from .ddpg import DDPG
from .ppo import PPO
from .td3 import TD3
from .sac import SAC
from .drq import DrQ
from .drqv2 import DrQv2
