from .inference import InferenceDataset
from .saliency import SaliencyDataset
