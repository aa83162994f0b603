from .model import AttentionModel
from .policy import AttentionModelPolicy
