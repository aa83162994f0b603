from hurricore.hooks.hook import Hook  # noqa: F401
from hurricore.hooks.logger_hook import LoggerHook  # noqa: F401
from hurricore.hooks.tensor_board_hook import TensorBoardHook  # noqa: F401
from hurricore.hooks.lr_scheduler_hook import LRSchedulerHook  # noqa: F401
from hurricore.hooks.hf_llm_peek_hook import HFLLMPeekHook  # noqa: F401
from hurricore.hooks.checkpoint_hook import CheckpointHook  # noqa: F401
from hurricore.hooks.sync_batch_norm_hook import SyncBatchNormHook  # noqa: F401
