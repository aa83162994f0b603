from .base import Agent, Env, Wrapper, Replay

from .basics import convert, treemap, pack, unpack
from .basics import print_ as print
from .basics import format_ as format

from .space import Space
from .path import Path
from .checkpoint import Checkpoint
from .config import Config
from .counter import Counter
from .driver import Driver
from .flags import Flags
from .logger import Logger
from .parallel import Parallel
from .timer import Timer
from .worker import Worker
from .batcher import Batcher
from .metrics import Metrics
from .uuid import uuid

from .batch import BatchEnv
from .random import RandomAgent
from .distr import Client, Server, BatchServer

from . import logger
from . import when
from . import wrappers
from . import distr
