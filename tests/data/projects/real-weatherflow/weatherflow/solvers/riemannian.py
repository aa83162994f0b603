"""Riemannian geometry-aware solvers for ODE systems."""

import torch
from torch import Tensor
from typing import Callable, Optional, Tuple, Dict
from ..manifolds.sphere import Sphere

class RiemannianSolver:
    """ODE solver that respects Riemannian manifold structure.
    
    This solver is designed for solving ODEs on manifolds like the sphere,
    ensuring that solutions remain on the manifold at each step.
    """
    
    def __init__(
        self,
        manifold=None,
        step_size: float = 0.01,
        rtol: float = 1e-5,
        atol: float = 1e-5, 
        max_steps: int = 1000
    ):
        """Initialize the solver.
        
        Args:
            manifold: The manifold to operate on (defaults to sphere)
            step_size: Initial step size
            rtol: Relative tolerance
            atol: Absolute tolerance
            max_steps: Maximum number of steps
        """
        self.manifold = manifold or Sphere()
        self.step_size = step_size
        self.rtol = rtol
        self.atol = atol
        self.max_steps = max_steps
    
    def solve(
        self,
        vector_field: Callable,
        x0: Tensor,
        t_span: Tensor,
        **kwargs
    ) -> Tuple[Tensor, Dict]:
        """Solve ODE on manifold using Riemannian methods.
        
        Args:
            vector_field: Function that computes the tangent vector
            x0: Initial state
            t_span: Time points to solve for
            **kwargs: Additional args for vector_field
            
        Returns:
            Tuple of (solution trajectory, solver stats)
        """
        device = x0.device
        dtype = x0.dtype
        batch_size = x0.shape[0]
        
        # Initialize solution array
        n_steps = len(t_span)
        solution = torch.zeros((n_steps, *x0.shape), device=device, dtype=dtype)
        solution[0] = x0
        
        # Step through time using Riemannian integrator
        for i in range(1, n_steps):
            dt = t_span[i] - t_span[i-1]
            
            # Get current state
            x = solution[i-1]
            
            # Compute velocity in tangent space
            v = vector_field(x, t_span[i-1], **kwargs)
            
            # Map to the manifold using exponential map
            solution[i] = self.manifold.exp_map(x, dt * v)
        
        return solution, {"success": True, "steps": n_steps-1}