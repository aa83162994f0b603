from .align import ALIGN as ALIGN
from .base import (
    AbstractAdaptiveSolver as AbstractAdaptiveSolver,
    AbstractImplicitSolver as AbstractImplicitSolver,
    AbstractItoSolver as AbstractItoSolver,
    AbstractSolver as AbstractSolver,
    AbstractStratonovichSolver as AbstractStratonovichSolver,
    AbstractWrappedSolver as AbstractWrappedSolver,
    HalfSolver as HalfSolver,
)
from .bosh3 import Bosh3 as Bosh3
from .dopri5 import Dopri5 as Dopri5
from .dopri8 import Dopri8 as Dopri8
from .euler import Euler as Euler
from .euler_heun import EulerHeun as EulerHeun
from .foster_langevin_srk import AbstractFosterLangevinSRK as AbstractFosterLangevinSRK
from .heun import Heun as Heun
from .implicit_euler import ImplicitEuler as ImplicitEuler
from .kencarp3 import KenCarp3 as KenCarp3
from .kencarp4 import KenCarp4 as KenCarp4
from .kencarp5 import KenCarp5 as KenCarp5
from .kvaerno3 import Kvaerno3 as Kvaerno3
from .kvaerno4 import Kvaerno4 as Kvaerno4
from .kvaerno5 import Kvaerno5 as Kvaerno5
from .leapfrog_midpoint import LeapfrogMidpoint as LeapfrogMidpoint
from .midpoint import Midpoint as Midpoint
from .milstein import (
    ItoMilstein as ItoMilstein,
    StratonovichMilstein as StratonovichMilstein,
)
from .quicsort import QUICSORT as QUICSORT
from .ralston import Ralston as Ralston
from .reversible_heun import ReversibleHeun as ReversibleHeun
from .runge_kutta import (
    AbstractDIRK as AbstractDIRK,
    AbstractERK as AbstractERK,
    AbstractESDIRK as AbstractESDIRK,
    AbstractRungeKutta as AbstractRungeKutta,
    AbstractSDIRK as AbstractSDIRK,
    ButcherTableau as ButcherTableau,
    CalculateJacobian as CalculateJacobian,
    MultiButcherTableau as MultiButcherTableau,
)
from .sea import SEA as SEA
from .semi_implicit_euler import SemiImplicitEuler as SemiImplicitEuler
from .shark import ShARK as ShARK
from .shark_general import GeneralShARK as GeneralShARK
from .should import ShOULD as ShOULD
from .sil3 import Sil3 as Sil3
from .slowrk import SlowRK as SlowRK
from .spark import SPaRK as SPaRK
from .sra1 import SRA1 as SRA1
from .srk import (
    AbstractSRK as AbstractSRK,
    StochasticButcherTableau as StochasticButcherTableau,
)
from .tsit5 import Tsit5 as Tsit5
