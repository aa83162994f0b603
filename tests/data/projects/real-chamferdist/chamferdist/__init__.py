from .chamfer import ChamferDistance
