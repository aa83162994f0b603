from . import conditional_sfno, swin_transformer
