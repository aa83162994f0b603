from .noise import *
from .utils import *
from .loss import *
from .dist import *
from .url import *
from .eval import *
from .diffusers import *
from .dataset import *

# add also aliases, e.g. ambient_utils.diffusers_utils should be a thing. This ensures backward compatibility.
import ambient_utils.diffusers as diffusers_utils
import ambient_utils.noise as noise_utils
import ambient_utils.dataset as dataset_utils
import ambient_utils.url as url_utils
import ambient_utils.eval as eval_utils
import ambient_utils.dist as dist_utils
import ambient_utils.loss as loss_utils
