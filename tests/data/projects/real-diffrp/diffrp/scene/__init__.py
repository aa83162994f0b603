"""
Includes the scene description components.
The APIs in the subpackages are also directly available from this ``diffrp.scene`` package.
"""

from .scene import Scene
from .lights import DirectionalLight, PointLight, ImageEnvironmentLight
from .objects import MeshObject
