from .base import (
    AbstractAdaptiveStepSizeController as AbstractAdaptiveStepSizeController,
    AbstractStepSizeController as AbstractStepSizeController,
)
from .clip import ClipStepSizeController as ClipStepSizeController
from .constant import ConstantStepSize as ConstantStepSize, StepTo as StepTo
from .pid import (
    PIDController as PIDController,
)
