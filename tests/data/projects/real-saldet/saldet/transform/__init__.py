from .transform import SaliencyTransform
