"""Actuator implementations for mjlab."""

from mjlab.actuator.actuator import Actuator as Actuator
from mjlab.actuator.actuator import ActuatorCfg as ActuatorCfg
from mjlab.actuator.actuator import ActuatorCmd as ActuatorCmd
from mjlab.actuator.actuator import CommandField as CommandField
from mjlab.actuator.builtin_actuator import (
  BuiltinDcMotorActuator as BuiltinDcMotorActuator,
)
from mjlab.actuator.builtin_actuator import (
  BuiltinDcMotorActuatorCfg as BuiltinDcMotorActuatorCfg,
)
from mjlab.actuator.builtin_actuator import (
  BuiltinMotorActuator as BuiltinMotorActuator,
)
from mjlab.actuator.builtin_actuator import (
  BuiltinMotorActuatorCfg as BuiltinMotorActuatorCfg,
)
from mjlab.actuator.builtin_actuator import (
  BuiltinMuscleActuator as BuiltinMuscleActuator,
)
from mjlab.actuator.builtin_actuator import (
  BuiltinMuscleActuatorCfg as BuiltinMuscleActuatorCfg,
)
from mjlab.actuator.builtin_actuator import (
  BuiltinPdActuator as BuiltinPdActuator,
)
from mjlab.actuator.builtin_actuator import (
  BuiltinPdActuatorCfg as BuiltinPdActuatorCfg,
)
from mjlab.actuator.builtin_actuator import (
  BuiltinPositionActuator as BuiltinPositionActuator,
)
from mjlab.actuator.builtin_actuator import (
  BuiltinPositionActuatorCfg as BuiltinPositionActuatorCfg,
)
from mjlab.actuator.builtin_actuator import (
  BuiltinVelocityActuator as BuiltinVelocityActuator,
)
from mjlab.actuator.builtin_actuator import (
  BuiltinVelocityActuatorCfg as BuiltinVelocityActuatorCfg,
)
from mjlab.actuator.builtin_actuator import (
  DcMotorDatasheetParams as DcMotorDatasheetParams,
)
from mjlab.actuator.builtin_actuator import (
  DcMotorInputMode as DcMotorInputMode,
)
from mjlab.actuator.builtin_actuator import (
  DcMotorPhysicalParams as DcMotorPhysicalParams,
)
from mjlab.actuator.builtin_group import BuiltinActuatorGroup as BuiltinActuatorGroup
from mjlab.actuator.dc_actuator import DcMotorActuator as DcMotorActuator
from mjlab.actuator.dc_actuator import DcMotorActuatorCfg as DcMotorActuatorCfg
from mjlab.actuator.fused_group import FusedActuatorGroup as FusedActuatorGroup
from mjlab.actuator.learned_actuator import LearnedMlpActuator as LearnedMlpActuator
from mjlab.actuator.learned_actuator import (
  LearnedMlpActuatorCfg as LearnedMlpActuatorCfg,
)
from mjlab.actuator.pd_actuator import IdealPdActuator as IdealPdActuator
from mjlab.actuator.pd_actuator import IdealPdActuatorCfg as IdealPdActuatorCfg
from mjlab.actuator.xml_actuator import XmlActuator as XmlActuator
from mjlab.actuator.xml_actuator import XmlActuatorCfg as XmlActuatorCfg
