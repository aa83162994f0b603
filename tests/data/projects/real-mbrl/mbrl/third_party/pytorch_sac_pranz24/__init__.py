from .replay_memory import ReplayMemory
from .sac import SAC
