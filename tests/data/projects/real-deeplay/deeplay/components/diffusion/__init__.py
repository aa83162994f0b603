from .attention_unet import AttentionUNet
