from .args import MapDatasetArgs, ShardDatasetArgs
from .map_dataset import MapDataset
from .shard_dataset import ShardDataset
