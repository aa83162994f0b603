from .sea_raft import *
