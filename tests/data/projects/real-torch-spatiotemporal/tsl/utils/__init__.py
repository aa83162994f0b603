from .io import (download_url, extract_tar, extract_zip, load_pickle,
                 save_figure, save_pickle)
from .python_utils import (ensure_list, files_exist, foo_signature,
                           precision_stoi, remove_files)
