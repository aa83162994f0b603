from mjlab.sim.sim import MujocoCfg as MujocoCfg
from mjlab.sim.sim import Simulation as Simulation
from mjlab.sim.sim import SimulationCfg as SimulationCfg
from mjlab.sim.sim_data import TorchArray as TorchArray
from mjlab.sim.sim_data import WarpBridge as WarpBridge
