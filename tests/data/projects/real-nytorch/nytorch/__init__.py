
from nytorch import kernel
from nytorch import mtype
from nytorch import utils
from nytorch import base
from nytorch import particle_updater
from nytorch import version_updater
from nytorch import module
from nytorch import particle_module
from nytorch.module import NytoModule
from nytorch.particle_module import GetNytoModule, ParticleModule
