from compel.compel import *
from compel.conditioning_scheduler import *
from compel.diffusers_textual_inversion_manager import *
from compel.embeddings_provider import *
from compel.prompt_parser import *
from compel.convenience_wrappers import *