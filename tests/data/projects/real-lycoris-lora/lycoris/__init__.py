try:
    from . import kohya
except Exception:
    pass
from . import (
    modules,
    utils,
)

from .config_sdk import (
    PresetConfig,
    AlgoOverride,
    describe_algo,
    list_algorithms,
    PresetValidationError,
)
from .config import list_builtin_presets

from .modules.locon import LoConModule
from .modules.loha import LohaModule
from .modules.lokr import LokrModule
from .modules.dylora import DyLoraModule
from .modules.glora import GLoRAModule
from .modules.norms import NormModule
from .modules.full import FullModule
from .modules.diag_oft import DiagOFTModule
from .modules.tlora import (
    TLoraModule,
    set_timestep_mask,
    get_timestep_mask,
    clear_timestep_mask,
    compute_timestep_mask,
)
from .modules import make_module

from .wrapper import (
    LycorisNetwork,
    create_lycoris,
    create_lycoris_from_weights,
)

from .logging import logger
