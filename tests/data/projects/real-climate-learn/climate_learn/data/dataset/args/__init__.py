from .map_dataset_args import MapDatasetArgs
from .shard_dataset_args import ShardDatasetArgs
