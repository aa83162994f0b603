from mjlab.tasks.tracking.rl.runner import (
  MotionTrackingOnPolicyRunner as MotionTrackingOnPolicyRunner,
)
