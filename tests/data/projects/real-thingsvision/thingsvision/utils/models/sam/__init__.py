from .image_encoder import ImageEncoderViT
