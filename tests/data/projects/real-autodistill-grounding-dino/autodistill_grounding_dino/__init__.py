from autodistill_grounding_dino.grounding_dino_model import GroundingDINO

__version__ = "0.1.4"
