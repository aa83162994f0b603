# MIT-licensed code imported from https://github.com/cornellius-gp/linear_operator
# Minor modifications for torchsparsegradutils to remove dependencies

import pytest
import torch
from test_config import Tolerances

import torchsparsegradutils
from torchsparsegradutils.utils import MINRESSettings
from torchsparsegradutils.utils.minres import minres

ATOL, RTOL = Tolerances.iterative(torch.float64)


def _run_minres(rhs_shape, shifts=None, matrix_batch_shape=torch.Size([])):
    # generate random RHS and SPD matrix
    size = rhs_shape[-2] if len(rhs_shape) > 1 else rhs_shape[-1]
    rhs = torch.randn(rhs_shape, dtype=torch.float64)
    matrix = torch.randn(*matrix_batch_shape, size, size, dtype=torch.float64)
    matrix = matrix @ matrix.mT
    matrix = matrix / torch.linalg.vector_norm(matrix)
    matrix = matrix + torch.eye(size, dtype=torch.float64) * 1e-1
    # compute minres
    if shifts is not None:
        shifts = shifts.type_as(rhs)
    settings = MINRESSettings(minres_tolerance=1e-6)
    solves = minres(matrix, rhs=rhs, value=-1, shifts=shifts, settings=settings)
    # adjust matrix dims
    while matrix.dim() < len(rhs_shape):
        matrix = matrix.unsqueeze(0)
    # apply shifts to matrix for exact solve
    if shifts is not None:
        eye = torch.eye(size, dtype=torch.float64)
        matrix = matrix - eye * shifts.view(*shifts.shape, *[1 for _ in matrix.shape])
    # compute direct solve
    actual = torch.linalg.solve(-matrix, rhs.unsqueeze(-1) if rhs.dim() == 1 else rhs)
    if rhs.dim() == 1:
        actual = actual.squeeze(-1)
    # assert closeness
    assert torch.allclose(solves, actual, atol=ATOL, rtol=RTOL)


def test_minres_vec():
    _run_minres(torch.Size([20]))


def test_minres_vec_multiple_shifts():
    shifts = torch.tensor([0.0, 1.0, 2.0])
    _run_minres(torch.Size([5]), shifts=shifts)


def test_minres_mat():
    _run_minres(torch.Size([20, 5]))
    _run_minres(torch.Size([3, 20, 5]))
    _run_minres(torch.Size([3, 20, 5]), matrix_batch_shape=torch.Size([3]))
    _run_minres(torch.Size([20, 5]), matrix_batch_shape=torch.Size([3]))


def test_minres_mat_multiple_shifts():
    shifts = torch.tensor([0.0, 1.0, 2.0])
    _run_minres(torch.Size([20, 5]), shifts=shifts)
    _run_minres(torch.Size([3, 20, 5]), shifts=shifts)
    _run_minres(torch.Size([3, 20, 5]), matrix_batch_shape=torch.Size([3]), shifts=shifts)
    _run_minres(torch.Size([20, 5]), matrix_batch_shape=torch.Size([3]), shifts=shifts)
