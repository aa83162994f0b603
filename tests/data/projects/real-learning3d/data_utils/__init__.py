from .dataloaders import ModelNet40Data
from .dataloaders import ClassificationData, RegistrationData, SegmentationData, FlowData, SceneflowDataset
from .dataloaders import download_modelnet40, deg_to_rad, create_random_transform
from .user_data import UserData