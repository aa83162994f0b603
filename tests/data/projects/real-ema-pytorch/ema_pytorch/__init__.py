from ema_pytorch.ema_pytorch import EMA
from ema_pytorch.ema_pytree_pytorch import EMAPytree, EMATensor

from ema_pytorch.post_hoc_ema import (
    KarrasEMA,
    PostHocEMA
)

from ema_pytorch.ema_module_kwargs import EMAModuleWrapper
