from edsnlp.pipes.misc.quantities.quantities import QuantitiesMatcher
from edsnlp.pipes.misc.quantities.patterns import *

from . import factory
