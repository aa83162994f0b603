from .checkpointing import CheckpointSaver, do_resume
from .metrics import Metrics
from .utilities import ResumeableDistributedSampler, set_global_seed
