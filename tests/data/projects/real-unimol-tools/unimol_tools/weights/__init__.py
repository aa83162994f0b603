from .weighthub import get_weight_dir, weight_download, weight_download_v2
