from .common import ActuationParams
