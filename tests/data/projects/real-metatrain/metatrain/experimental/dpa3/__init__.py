from .model import DPA3
from .trainer import Trainer


__model__ = DPA3
__trainer__ = Trainer

__authors__ = [
    ("Duo Zhang <zhduodyx@pku.edu.cn>", "@duozhang"),
]

__maintainers__ = [
    ("Duo Zhang <zhduodyx@pku.edu.cn>", "@duozhang"),
    ("Wentao Li <liwt24@mails.tsinghua.edu.cn>", "@wentaoli"),
]
