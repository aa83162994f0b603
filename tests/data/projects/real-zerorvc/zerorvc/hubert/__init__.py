from .extractor import HubertFeatureExtractor, HubertModel
from .load import load_hubert
