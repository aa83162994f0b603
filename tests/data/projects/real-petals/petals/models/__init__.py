from petals.models.bloom import *
from petals.models.falcon import *
from petals.models.llama import *
