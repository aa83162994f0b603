from .models.inception_resnet_v1 import InceptionResnetV1
from .models.mtcnn import MTCNN, PNet, RNet, ONet, prewhiten, fixed_image_standardization
from .models.utils.detect_face import extract_face
from .models.utils import training

import warnings
warnings.filterwarnings(
    action="ignore", 
    message="This overload of nonzero is deprecated:\n\tnonzero()", 
    category=UserWarning
)