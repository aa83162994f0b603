from .model import ItemTower, QueryTower, TwoTower, TwoTowerBody
from .reader import FeaturesReader, FeaturesReaderProtocol
