import sys, pathlib
sys.path.append(str(pathlib.Path(__file__).parent))

from .agent import Agent
configs = Agent.configs
from .train import wrap_env
