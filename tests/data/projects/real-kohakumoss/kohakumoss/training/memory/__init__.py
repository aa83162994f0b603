"""The trainer's optimiser wiring of a MemoryPlan (`optimizers`) and `MemorySession`;
the plan itself, its estimate and its application are `kohakumoss.memory`."""
