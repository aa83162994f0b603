from ultrack.imgproc.intensity import normalize, robust_invert
from ultrack.imgproc.measure import tracks_properties
from ultrack.imgproc.plantseg import PlantSeg
from ultrack.imgproc.register import register_timelapse
from ultrack.imgproc.segmentation import Cellpose, detect_foreground, inverted_edt
