from lxt.efficient.core import monkey_patch
from lxt.efficient.zennit_patches import monkey_patch_zennit