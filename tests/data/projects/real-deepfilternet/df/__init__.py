from .config import config
from .enhance import enhance, init_df
from .version import version

__all__ = ["config", "version", "enhance", "init_df"]
__version__ = version
