from x_clip.x_clip import CLIP, TextTransformer
