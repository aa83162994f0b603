"""Train-knob checks by area (objective, encoders, parallel layout, outputs), each a
`<area>_problems(k) -> list[str]` that `training.knobs.validate` gathers."""
