from .dataloader import PointsDataset, PointsDataLoader
from .deeponet_dataloader import DeepONetDataLoader
