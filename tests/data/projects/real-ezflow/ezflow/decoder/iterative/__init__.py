from .recurrent_lookup import *
