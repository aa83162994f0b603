from ncut_pytorch.ncut import Ncut
from ncut_pytorch.ncuts.ncut_nystrom import ncut_fn
from ncut_pytorch.ncuts.ncut_kway import kway_ncut, axis_align, quick_kway
from ncut_pytorch.ncuts.ncut_click import ncut_click_prompt
