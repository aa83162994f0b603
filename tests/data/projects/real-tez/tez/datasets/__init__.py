from .generic import GenericDataset
from .image_classification import ImageDataset
from .image_segmentation import RCNNDataset
