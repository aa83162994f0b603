from .agent import Agent
from .agent.sac import SACAgent
from .logger import Logger
from .replay_buffer import ReplayBuffer
from .video import VideoRecorder
