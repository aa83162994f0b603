from .AutoModel import AutoModel
from .OpusMT import OpusMT