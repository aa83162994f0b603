from .scrfd_detector import SCRFDDetector as FaceDetector
