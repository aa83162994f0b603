from .model import dreamsim, PerceptualModel
