# Vendored PhysicsNeMo distributed (pnd) manager
