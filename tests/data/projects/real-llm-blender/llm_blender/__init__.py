from llm_blender.blender.blender import Blender
from llm_blender.pair_ranker.config import RankerConfig
from llm_blender.gen_fuser.config import GenFuserConfig
from llm_blender.blender.config import BlenderConfig
