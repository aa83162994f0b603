from .multi_call import MultiCallStep, MultiCallStepConfig
from .output import StepOutput
from .radiation import SeparateRadiationStep, SeparateRadiationStepConfig
from .secondary_module import SecondaryModuleStep, SecondaryModuleStepConfig
from .single_module import SingleModuleStep, SingleModuleStepConfig
from .step import StepABC, StepConfigABC, StepSelector
