from .general import (
    rebuild_tucker,
    factorization,
    power2factorization,
    FUNC_LIST,
    tucker_weight,
    tucker_weight_from_conv,
    apply_dora_scale,
    add_scaled,
    weight_decompose,
)
