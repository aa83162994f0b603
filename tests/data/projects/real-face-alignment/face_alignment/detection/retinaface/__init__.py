from .retinaface_detector import RetinaFaceDetector as FaceDetector
