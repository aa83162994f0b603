"""ONNX/TensorRT export wrappers."""

from sleap_nn.export.wrappers.base import BaseExportWrapper
from sleap_nn.export.wrappers.centroid import CentroidONNXWrapper
from sleap_nn.export.wrappers.centered_instance import CenteredInstanceONNXWrapper
from sleap_nn.export.wrappers.topdown import TopDownONNXWrapper
from sleap_nn.export.wrappers.bottomup import BottomUpONNXWrapper
from sleap_nn.export.wrappers.single_instance import SingleInstanceONNXWrapper
from sleap_nn.export.wrappers.topdown_multiclass import (
    TopDownMultiClassONNXWrapper,
    TopDownMultiClassCombinedONNXWrapper,
)
from sleap_nn.export.wrappers.bottomup_multiclass import BottomUpMultiClassONNXWrapper
from sleap_nn.export.wrappers.embedding import EmbeddingONNXWrapper
from sleap_nn.export.wrappers.bbox import BBoxONNXWrapper

__all__ = [
    "BaseExportWrapper",
    "BBoxONNXWrapper",
    "EmbeddingONNXWrapper",
    "CentroidONNXWrapper",
    "CenteredInstanceONNXWrapper",
    "TopDownONNXWrapper",
    "BottomUpONNXWrapper",
    "SingleInstanceONNXWrapper",
    "TopDownMultiClassONNXWrapper",
    "TopDownMultiClassCombinedONNXWrapper",
    "BottomUpMultiClassONNXWrapper",
]
