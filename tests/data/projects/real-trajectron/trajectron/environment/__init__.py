from .data_structures import RingBuffer, SingleHeaderNumpyArray, DoubleHeaderNumpyArray
from .scene import Scene
from .node import Node
from .scene_graph import TemporalSceneGraph, SceneGraph
from .environment import Environment
from .node_type import NodeTypeEnum
from .data_utils import derivative_of
from .map import GeometricMap
