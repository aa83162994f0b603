# flake8: noqa

# As far as contrib is **not** very stable - do not import it all :)

# from catalyst.contrib.data import *
# from catalyst.contrib.datasets import *
# from catalyst.contrib.layers import *
# from catalyst.contrib.losses import *
# from catalyst.contrib.models import *
# from catalyst.contrib.optimizers import *
# from catalyst.contrib.schedulers import *
