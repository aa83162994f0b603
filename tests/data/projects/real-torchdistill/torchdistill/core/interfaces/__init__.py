from . import forward_proc, post_epoch_proc, post_forward_proc, pre_epoch_proc, pre_forward_proc
