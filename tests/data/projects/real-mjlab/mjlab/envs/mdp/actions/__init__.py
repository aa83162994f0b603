from mjlab.envs.mdp.actions.actions import JointEffortAction as JointEffortAction
from mjlab.envs.mdp.actions.actions import JointEffortActionCfg as JointEffortActionCfg
from mjlab.envs.mdp.actions.actions import JointPositionAction as JointPositionAction
from mjlab.envs.mdp.actions.actions import (
  JointPositionActionCfg as JointPositionActionCfg,
)
from mjlab.envs.mdp.actions.actions import JointVelocityAction as JointVelocityAction
from mjlab.envs.mdp.actions.actions import (
  JointVelocityActionCfg as JointVelocityActionCfg,
)
from mjlab.envs.mdp.actions.actions import (
  RelativeJointPositionAction as RelativeJointPositionAction,
)
from mjlab.envs.mdp.actions.actions import (
  RelativeJointPositionActionCfg as RelativeJointPositionActionCfg,
)
from mjlab.envs.mdp.actions.actions import SiteEffortAction as SiteEffortAction
from mjlab.envs.mdp.actions.actions import SiteEffortActionCfg as SiteEffortActionCfg
from mjlab.envs.mdp.actions.actions import TendonEffortAction as TendonEffortAction
from mjlab.envs.mdp.actions.actions import (
  TendonEffortActionCfg as TendonEffortActionCfg,
)
from mjlab.envs.mdp.actions.actions import TendonLengthAction as TendonLengthAction
from mjlab.envs.mdp.actions.actions import (
  TendonLengthActionCfg as TendonLengthActionCfg,
)
from mjlab.envs.mdp.actions.actions import TendonVelocityAction as TendonVelocityAction
from mjlab.envs.mdp.actions.actions import (
  TendonVelocityActionCfg as TendonVelocityActionCfg,
)
from mjlab.envs.mdp.actions.differential_ik import (
  DifferentialIKAction as DifferentialIKAction,
)
from mjlab.envs.mdp.actions.differential_ik import (
  DifferentialIKActionCfg as DifferentialIKActionCfg,
)
