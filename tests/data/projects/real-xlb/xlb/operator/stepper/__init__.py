from xlb.operator.stepper.stepper import Stepper
from xlb.operator.stepper.nse_stepper import IncompressibleNavierStokesStepper
from xlb.operator.stepper.ibm_stepper import IBMStepper
