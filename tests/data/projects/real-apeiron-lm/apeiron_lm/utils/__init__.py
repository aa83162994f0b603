# Copyright 2026 Ömür Bera Işık  —  Apache-2.0
from apeiron_lm.utils.io      import (
    bytes_to_tensor,
    tensor_to_bytes,
    text_to_tensor,
    tensor_to_text,
    pad_sequence_batch,
)
from apeiron_lm.utils.misc    import (
    count_parameters,
    set_seed,
    get_device,
    human_readable_size,
    model_summary,
)
from apeiron_lm.utils.logging import ApeironLogger

__all__ = [
    "bytes_to_tensor",
    "tensor_to_bytes",
    "text_to_tensor",
    "tensor_to_text",
    "pad_sequence_batch",
    "count_parameters",
    "set_seed",
    "get_device",
    "human_readable_size",
    "model_summary",
    "ApeironLogger",
]
