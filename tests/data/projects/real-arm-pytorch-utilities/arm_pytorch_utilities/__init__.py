from arm_pytorch_utilities.tensor_utils import handle_batch_input, is_tensor_like, ensure_tensor, ensure_diagonal
from arm_pytorch_utilities.rand import seed, SavedRNG
from arm_pytorch_utilities.grad import jacobian, batch_jacobian
from arm_pytorch_utilities.linalg import cov, ls_cov, batch_quadratic_product, batch_outer_product, batch_batch_product, \
    kronecker_product
from arm_pytorch_utilities.array_utils import sort_nicely
from arm_pytorch_utilities.math_utils import clip, replace_nan_and_inf, get_bounds, rotate_wrt_origin, angular_diff, \
    angle_normalize, cos_sim_pairwise
