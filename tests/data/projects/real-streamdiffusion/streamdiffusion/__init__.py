from .pipeline import StreamDiffusion
