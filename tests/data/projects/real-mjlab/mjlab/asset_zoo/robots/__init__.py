from mjlab.asset_zoo.robots.i2rt_yam.yam_constants import (
  YAM_ACTION_SCALE as YAM_ACTION_SCALE,
)
from mjlab.asset_zoo.robots.i2rt_yam.yam_constants import (
  get_yam_robot_cfg as get_yam_robot_cfg,
)
from mjlab.asset_zoo.robots.unitree_g1.g1_constants import (
  G1_ACTION_SCALE as G1_ACTION_SCALE,
)
from mjlab.asset_zoo.robots.unitree_g1.g1_constants import (
  get_g1_robot_cfg as get_g1_robot_cfg,
)
from mjlab.asset_zoo.robots.unitree_go1.go1_constants import (
  GO1_ACTION_SCALE as GO1_ACTION_SCALE,
)
from mjlab.asset_zoo.robots.unitree_go1.go1_constants import (
  get_go1_robot_cfg as get_go1_robot_cfg,
)
