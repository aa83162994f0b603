import diffusers

EulerDiscreteScheduler = diffusers.EulerDiscreteScheduler
