from pycorre.core.numerics_torch import register_translation_batch
from pycorre.core.pw_rigid_torch import register_pwrigid_batch
from pycorre.core.transform_torch import apply_shifts_pwrigid, apply_shifts_rigid

__all__ = [
    "register_translation_batch",
    "apply_shifts_rigid",
    "apply_shifts_pwrigid",
    "register_pwrigid_batch",
]
