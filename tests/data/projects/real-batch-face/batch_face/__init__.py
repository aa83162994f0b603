__version__ = "1.2.0"
from .utils import drawLandmark_multiple, detection_adapter, bbox_from_pts, Aligner, draw_landmarks, load_frames_rgb, Timer, load_image_rgb
from .fast_alignment import *
from .face_detection import *
from .face_reconstruction import *
from .head_pose import *
from .face_parsing import *