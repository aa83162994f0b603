__version__ = "0.1.9"

from .wrapper import PrivacyWrapper, PerSampleGradientWrapper
from .snooper import ModelSnooper
from .dataloader import UniformDataLoader
from .surgery import ModelSurgeon, SurgicalProcedures
from .watchdog import PrivacyWatchdog

__all__ = [
    "PrivacyWrapper",
    "PerSampleGradientWrapper",
    "UniformDataLoader",
    "ModelSurgeon",
    "SurgicalProcedures",
    "PrivacyWatchdog",
]
