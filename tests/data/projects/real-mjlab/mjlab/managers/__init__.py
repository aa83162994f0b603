"""Environment managers."""

from mjlab.managers.action_manager import ActionManager as ActionManager
from mjlab.managers.action_manager import ActionTerm as ActionTerm
from mjlab.managers.action_manager import ActionTermCfg as ActionTermCfg
from mjlab.managers.command_manager import CommandManager as CommandManager
from mjlab.managers.command_manager import CommandTerm as CommandTerm
from mjlab.managers.command_manager import CommandTermCfg as CommandTermCfg
from mjlab.managers.command_manager import NullCommandManager as NullCommandManager
from mjlab.managers.curriculum_manager import CurriculumManager as CurriculumManager
from mjlab.managers.curriculum_manager import CurriculumTermCfg as CurriculumTermCfg
from mjlab.managers.curriculum_manager import (
  NullCurriculumManager as NullCurriculumManager,
)
from mjlab.managers.event_manager import EventManager as EventManager
from mjlab.managers.event_manager import EventMode as EventMode
from mjlab.managers.event_manager import EventTermCfg as EventTermCfg
from mjlab.managers.manager_base import ManagerBase as ManagerBase
from mjlab.managers.manager_base import ManagerTermBase as ManagerTermBase
from mjlab.managers.manager_base import ManagerTermBaseCfg as ManagerTermBaseCfg
from mjlab.managers.metrics_manager import MetricsManager as MetricsManager
from mjlab.managers.metrics_manager import MetricsTermCfg as MetricsTermCfg
from mjlab.managers.metrics_manager import NullMetricsManager as NullMetricsManager
from mjlab.managers.observation_manager import (
  ObservationGroupCfg as ObservationGroupCfg,
)
from mjlab.managers.observation_manager import ObservationManager as ObservationManager
from mjlab.managers.observation_manager import ObservationTermCfg as ObservationTermCfg
from mjlab.managers.recorder_manager import NullRecorderManager as NullRecorderManager
from mjlab.managers.recorder_manager import RecorderManager as RecorderManager
from mjlab.managers.recorder_manager import RecorderTerm as RecorderTerm
from mjlab.managers.recorder_manager import RecorderTermCfg as RecorderTermCfg
from mjlab.managers.reward_manager import RewardManager as RewardManager
from mjlab.managers.reward_manager import RewardTermCfg as RewardTermCfg
from mjlab.managers.scene_entity_config import SceneEntityCfg as SceneEntityCfg
from mjlab.managers.termination_manager import TerminationManager as TerminationManager
from mjlab.managers.termination_manager import TerminationTermCfg as TerminationTermCfg
