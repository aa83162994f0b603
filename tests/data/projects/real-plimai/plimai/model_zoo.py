class VisualModelLoader:
    pass
