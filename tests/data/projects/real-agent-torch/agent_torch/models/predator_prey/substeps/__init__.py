from substeps.move import *
from substeps.eat import *
from substeps.hunt import *
from substeps.grow import *
