# from .dynapcnn import DynapcnnConfigBuilder
from .speck2e import Speck2EConfigBuilder
from .speck2f import Speck2FConfigBuilder
