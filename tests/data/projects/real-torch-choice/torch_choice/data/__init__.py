from .choice_dataset import *
from .joint_dataset import *
from .example_datasets import *