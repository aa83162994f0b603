"""
Differentiable Robot Model
====================================
Differentiable and learnable robot model.
"""

from .robot_model import (
    DifferentiableRobotModel,
    DifferentiableKUKAiiwa,
    DifferentiableFrankaPanda,
    DifferentiableTwoLinkRobot,
)
