from xlb.operator.macroscopic.macroscopic import Macroscopic
from xlb.operator.macroscopic.second_moment import SecondMoment
from xlb.operator.macroscopic.zero_moment import ZeroMoment
from xlb.operator.macroscopic.first_moment import FirstMoment
