from .cpn_inference import cpn_inference
