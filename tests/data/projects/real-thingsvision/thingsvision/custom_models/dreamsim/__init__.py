from .dreamsim import DreamSim
