from mjlab.tasks.manipulation.rl.runner import (
  ManipulationOnPolicyRunner as ManipulationOnPolicyRunner,
)
