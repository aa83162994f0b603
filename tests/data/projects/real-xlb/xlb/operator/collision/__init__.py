from xlb.operator.collision.collision import Collision
from xlb.operator.collision.bgk import BGK
from xlb.operator.collision.kbc import KBC
from xlb.operator.collision.smagorinsky_les_bgk import SmagorinskyLESBGK
from xlb.operator.collision.forced_collision import ForcedCollision
