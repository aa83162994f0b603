
from .lqr import LQR
from .ekf import EKF
from .ukf import UKF
from .mpc import MPC
from .pf import PF
from .dynamics import System, LTI, LTV, NLS
from .imu_preintegrator import IMUPreintegrator
from .pnp import EPnP
from .icp import ICP
from .loss import GeodesicLoss
