from .base_agent import BaseAgent
from .multi_agent import MultiAgent
from .registration import REGISTERED_AGENTS, register_agent
