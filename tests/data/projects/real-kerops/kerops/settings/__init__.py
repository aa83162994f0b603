from .hardware_conf import get_l1_cache
from .utils import ConfigurableArg, CongiguratorError
from .wrapper import confexc, configure
