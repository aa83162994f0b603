from .yunet_detector import YuNetDetector as FaceDetector
