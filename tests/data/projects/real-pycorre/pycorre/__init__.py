from pycorre.model import (
    MotionCorrection,
    PWRigidMotionCorrection,
    RigidMotionCorrection,
)

__all__ = [
    "MotionCorrection",
    "RigidMotionCorrection",
    "PWRigidMotionCorrection",
]
