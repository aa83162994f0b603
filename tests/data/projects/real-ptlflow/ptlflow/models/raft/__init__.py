from .raft import *
