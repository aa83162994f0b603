from codeformer.basicsr.utils.file_client import FileClient
from codeformer.basicsr.utils.img_util import crop_border, imfrombytes, img2tensor, imwrite, tensor2img
from codeformer.basicsr.utils.logger import (
    MessageLogger,
    get_env_info,
    get_root_logger,
    init_tb_logger,
    init_wandb_logger,
)
from codeformer.basicsr.utils.misc import *
from codeformer.basicsr.utils.misc import (
    check_resume,
    get_time_str,
    make_exp_dirs,
    mkdir_and_rename,
    scandir,
    set_random_seed,
    sizeof_fmt,
)
from codeformer.basicsr.utils.realesrgan_utils import RealESRGANer

__all__ = [
    # file_client.py
    "FileClient",
    # img_util.py
    "img2tensor",
    "tensor2img",
    "imfrombytes",
    "imwrite",
    "crop_border",
    # logger.py
    "MessageLogger",
    "init_tb_logger",
    "init_wandb_logger",
    "get_root_logger",
    "get_env_info",
    # misc.py
    "set_random_seed",
    "get_time_str",
    "mkdir_and_rename",
    "make_exp_dirs",
    "scandir",
    "check_resume",
    "sizeof_fmt",
]
