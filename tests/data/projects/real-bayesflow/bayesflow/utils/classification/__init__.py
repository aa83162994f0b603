from .confusion_matrix import confusion_matrix
from .calibration_curve import calibration_curve
