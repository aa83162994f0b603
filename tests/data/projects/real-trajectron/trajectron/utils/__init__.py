from .trajectory_utils import prediction_output_to_trajectories
from .matrix_utils import block_diag, tile
from .os_utils import maybe_makedirs