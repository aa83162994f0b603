from mjlab.tasks.velocity.rl.runner import (
  VelocityOnPolicyRunner as VelocityOnPolicyRunner,
)
