from .build import DATASET_REGISTRY, build_dataloader, get_dataset_list
from .dataloader import *
from .dataset import *
