from .prune import prune_by_score
from .merge import merge
from .copy import deepcopy
from .blockify import blockify, unblockify, bump_block_size
from .grow import grow