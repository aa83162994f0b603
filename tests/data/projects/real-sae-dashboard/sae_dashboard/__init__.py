__version__ = "0.8.0"

# from .data_fetching_fns import *
# from .data_storing_fns import *
# from .html_fns import *
# from .transformer_lens_wrapper import *
# from .utils_fns import *


# from autoencoder import AutoEncoder, AutoEncoderConfig
