from .aimnet2 import AIMNet2  # noqa: F401
from .artifact_validation import (  # noqa: F401
    ALLOWED_MODEL_IMPORT_PATHS,
    ModelImportPolicy,
)
from .base import AIMNet2Base, load_legacy_jit, load_model  # noqa: F401
from .utils import (  # noqa: F401
    extract_coulomb_rc,
    extract_d3_params,
    extract_species,
    has_d3ts,
    has_d3ts_in_config,
    has_dispersion,
    has_embedded_tabulated_dftd3,
    has_externalizable_dftd3,
    has_lrcoulomb,
    iter_lrcoulomb_mods,
)
