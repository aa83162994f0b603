# isort: skip_file
# TODO (stao): There are a lot of crazy circular imports going on here so have to skip isorting for now
from .base import (
    BaseStruct,
    PhysxJointComponentStruct,
    PhysxRigidBaseComponentStruct,
    PhysxRigidBodyComponentStruct,
    PhysxRigidDynamicComponentStruct,
)
from .pose import Pose

from .actor import Actor
from .link import Link

from .articulation_joint import ArticulationJoint
from .articulation import Articulation

from .render_camera import RenderCamera
from .types import *
