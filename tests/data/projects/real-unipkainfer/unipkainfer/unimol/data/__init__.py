from .key_dataset import KeyDataset
from .normalize_dataset import (
    NormalizeDataset,
)
from .remove_hydrogen_dataset import (
    RemoveHydrogenDataset,
)
from .tta_dataset import (
    TTADataset,
    TTAPKADataset,
)
from .cropping_dataset import CroppingDataset

from .distance_dataset import (
    DistanceDataset,
    EdgeTypeDataset,
)
from .conformer_sample_dataset import (
    ConformerSamplePKADataset,
)
from .coord_pad_dataset import RightPadDatasetCoord
from .lmdb_dataset import (
    FoldLMDBDataset,
    StackedLMDBDataset,
    SplitLMDBDataset,
)
from .pka_input_dataset import (
    PKAInputDataset,
    PKAMLMInputDataset,
)
from .mask_points_dataset import MaskPointsDataset

__all__ = [
    "ConformerSamplePKADataset",
    "CroppingDataset",
    "DistanceDataset",
    "EdgeTypeDataset",
    "FoldLMDBDataset",
    "KeyDataset",
    "MaskPointsDataset",
    "NormalizeDataset",
    "PKAInputDataset",
    "PKAMLMInputDataset",
    "RemoveHydrogenDataset",
    "RightPadDatasetCoord",
    "SplitLMDBDataset",
    "StackedLMDBDataset",
    "TTADataset",
    "TTAPKADataset",
]
