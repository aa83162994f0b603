from enforce.core.config import ENFORCEConfig
from enforce.core.model import ENFORCE

__all__ = ["ENFORCEConfig", "ENFORCE"]
