from .loaders import ModelToMjcf, RodModelToMjcf, SdfToMjcf, UrdfToMjcf
from .model import MujocoModelHelper
from .utils import MujocoCamera, mujoco_data_from_jaxsim
from .visualizer import MujocoVideoRecorder, MujocoVisualizer
