from pytorch_grad_cam.utils.image import deprocess_image
from pytorch_grad_cam.utils.svd_on_activations import get_2d_projection
from pytorch_grad_cam.utils import model_targets
from pytorch_grad_cam.utils import reshape_transforms
