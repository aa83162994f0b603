from mjlab.scene.scene import Scene as Scene
from mjlab.scene.scene import SceneCfg as SceneCfg
