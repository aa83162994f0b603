from .encoder import CamemBERTEncoder
