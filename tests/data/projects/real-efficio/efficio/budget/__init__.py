"""Time budget features. The budget stop itself is part of efficio.Run; the planner and
auto-shutdown here are planned for a future release."""
