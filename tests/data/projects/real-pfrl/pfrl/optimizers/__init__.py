from pfrl.optimizers.rmsprop_eps_inside_sqrt import RMSpropEpsInsideSqrt  # noqa
from pfrl.optimizers.rmsprop_eps_inside_sqrt import SharedRMSpropEpsInsideSqrt  # noqa
