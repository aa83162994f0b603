from .checkpointing import load_checkpoint  # noqa: F401
from .checkpointing import save_checkpoint  # noqa: F401
