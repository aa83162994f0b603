from .loader import get_model, load_decoder, load_encoder
