import logging
from pathlib import Path
from typing import Callable

import jax.numpy as jnp
import numpy as np
from ase import Atoms

try:
    from openmm.app import Element, Simulation, Topology
    from openmm.openmm import (
        CMMotionRemover,
        Integrator,
        Platform,
        PythonForce,
        State,
        System,
    )
    from openmm.unit import angstrom

    _openmm_imported = True
except ImportError:
    _openmm_imported = False

from ase.units import eV, kJ, mol, nm
from vesin import NeighborList

from apax.md.ase_calc import (
    build_energy_neighbor_fns,
    check_for_ensemble,
    get_step_fn,
    make_ensemble,
    neighbor_calculable_with_jax,
)
from apax.train.checkpoints import restore_parameters
from apax.utils.jax_md_reduced import space

log = logging.getLogger(__name__)


def create_topology_from_ase_atoms(atoms: Atoms) -> Topology:
    """Create an OpenMM topology from an Atoms instance.

    Args:
        atoms (Atoms): atoms to create a Topology from. No bonds
            are created.

    Returns:
        toplogy (Topology): Topology, where all atoms in the Atoms instance
            are within one Chain and Residue. The periodic box vectors are set
            according to atoms.cell.array.
    """
    if not _openmm_imported:
        raise ImportError(
            "create_topology_from_ase_atoms requires OpenMM with at least version 8.5.0 to be installed."
        )
    topology = Topology()
    chain = topology.addChain()
    residue = topology.addResidue("structure", chain)
    for i, atom in enumerate(atoms):
        element = Element.getByAtomicNumber(atom.number)
        topology.addAtom(f"atom-{i}", element, residue)

    if np.any(atoms.cell.array > 1e-6):
        topology.setPeriodicBoxVectors(atoms.cell.array * angstrom)

    return topology


def create_system(atoms: Atoms, removeCMMotion: bool = True) -> System:
    """Create an OpenMM System from an Atoms instance.

    Args:
        atoms (Atoms): atoms to create a System from.
        removeCMMotion (bool): whether to keep the center-of-mass fixed during
            the simulation. Default = True

    Returns:
        system (System): System with particles with masses of those
            in the Atoms instance. The periodic box vectors are set
            according to atoms.cell.array.
    """
    if not _openmm_imported:
        raise ImportError(
            "create_system requires OpenMM with at least version 8.5.0 to be installed."
        )
    system = System()
    for atom in atoms:
        system.addParticle(atom.mass)

    if removeCMMotion:
        system.addForce(CMMotionRemover(1))

    if np.any(atoms.cell.array > 1e-6):
        a, b, c = (
            atoms.cell[0] * angstrom,
            atoms.cell[1] * angstrom,
            atoms.cell[2] * angstrom,
        )
        system.setDefaultPeriodicBoxVectors(a, b, c)

    return system


def create_simulation(
    atoms: Atoms,
    system: System,
    integrator: Integrator,
    platform: Platform | None = None,
    platformProperties: dict[str, str] | None = None,
) -> Simulation:
    """Create an OpenMM Simulation.

    Args:
        atoms (Atoms): Atoms to integrate
        system (System): system with masses and PBCs (if applicable)
        integrator (Integrator): integrator moving the atoms according to
            Newton's equation of motion
        platform (Platform | None): Platform to run simulation on. If None, OpenMM
            tries to select the fastest platform. Default = None.
            See https://docs.openmm.org/latest/userguide/application/02_running_sims.html#platforms

    Returns:
        simulation (Simulation): simulation that can be ran to do, for example,
            molecular dynamics.
    """
    topology = create_topology_from_ase_atoms(atoms)
    simulation = Simulation(
        topology,
        system,
        integrator,
        platform=platform,
        platformProperties=platformProperties,
    )

    simulation.context.setPositions(atoms.positions * angstrom)

    if np.any(atoms.cell.array > 1e-6):
        a, b, c = (
            atoms.cell[0] * angstrom,
            atoms.cell[1] * angstrom,
            atoms.cell[2] * angstrom,
        )
        simulation.context.setPeriodicBoxVectors(a, b, c)

    return simulation


_dummy_box = jnp.full((3, 3), 0.0, dtype=jnp.float64)
_energy_scaling = eV / (kJ / mol)
_pos_scaling = 1.0 / nm
_force_scaling = _energy_scaling / _pos_scaling


class OpenMMInterface:
    """
    OpenMM interface for Apax models.
    Can create a function that can be turned into a PythonForce
    for calculating energies and forces during OpenMM simulations,
    see `OpenMMInterface.get_python_force_fn`.

    """

    def __init__(
        self,
        model_dir: str | Path,
        dr_threshold: float = 0.5,
        transformations: list[Callable] = [],
        padding_factor: float = 1.5,
    ):
        """
        Parameters
        ----------
        model_dir:
            Path to a model directory of the form `.../directory/experiment`
            (see Config docs for details).
            If a list of model paths is provided, they will be ensembled.
        dr_threshold:
            Neighborlist skin for the JaxMD neighborlist.
        transformations:
            Function transformations applied on top of the EnergyDerivativeModel.
            Transformations are implemented under `apax.md.transformations`.
        padding_factor:
            Multiple of the fallback vesin's amount of neighbors.
            This NL will be padded to `len(neighbors) * padding_factor`
            on NL initialization.
        """
        if not _openmm_imported:
            raise ImportError(
                "OpenMMInterface requires OpenMM with at least version 8.5.0 to be installed."
            )
        self.model_dir = model_dir

        self.dr_threshold = dr_threshold
        self.transformations = transformations
        self.padding_factor = padding_factor

        self.step = None
        self.neighbor_fn = None
        self.neighbors = None
        self._is_initialized = False

    def _initialize(self, atoms: Atoms) -> None:
        if self._is_initialized:
            raise ValueError(
                "This PythonForceClass instance was already initialized, and cannot be reinitialized with different atoms. Please create a new instance"
            )
        model_config, params = restore_parameters(self.model_dir)
        self.r_max = model_config.model.basis.r_max

        self._atoms_is_periodic = bool(np.any(atoms.cell.array > 1e-6))
        self._atomic_numbers = jnp.asarray(atoms.numbers)

        box = jnp.asarray(atoms.cell.array, dtype=jnp.float64)
        self.neigbor_from_jax = neighbor_calculable_with_jax(box, self.r_max)

        self.model, self.neighbor_fn = build_energy_neighbor_fns(
            atoms,
            model_config,
            params,
            self.dr_threshold,
            self.neigbor_from_jax,
        )

        n_models = check_for_ensemble(params)
        if n_models > 1:
            self.model = make_ensemble(self.model)

        for transformation in self.transformations:
            self.model = transformation.apply(self.model)

        self.previous_cell = box
        self._allocate_neighbors(jnp.asarray(atoms.positions, dtype=jnp.float64), box)
        self._set_step_fn()

        self._is_initialized = True

    def _set_step_fn(self) -> None:
        self.step = get_step_fn(
            self.model,
            self._atomic_numbers,
            self._atoms_is_periodic,
            self.neigbor_from_jax,
        )

    def _allocate_neighbors(self, positions: jnp.ndarray, box: jnp.ndarray) -> None:
        if self.neigbor_from_jax:
            if np.any(box > 1e-6):
                inv_box = jnp.linalg.inv(box.T)
                positions = space.transform(inv_box, positions)  # frac coords
                self.neighbors = self.neighbor_fn.allocate(positions, box=box.T)
            else:
                self.neighbors = self.neighbor_fn.allocate(positions)
        else:
            calculator = NeighborList(cutoff=self.r_max, full_list=True)
            (idxs_i,) = calculator.compute(
                points=positions,
                box=box,
                periodic=self._atoms_is_periodic,
                quantities="i",
            )
            self.padded_length = int(len(idxs_i) * self.padding_factor)

    def _set_neighbors_and_offsets(
        self, positions: jnp.ndarray, box: jnp.ndarray
    ) -> None:
        calculator = NeighborList(cutoff=self.r_max, full_list=True)
        idxs_i, idxs_j, offsets = calculator.compute(
            points=positions,
            box=box,
            periodic=self._atoms_is_periodic,
            quantities="ijS",
        )
        if len(idxs_i) > self.padded_length:
            log.warning("Neighbor list overflowed, extending.")
            self._allocate_neighbors(positions, box)

        zeros_to_add = self.padded_length - len(idxs_i)

        self.neighbors = np.array([idxs_i, idxs_j], dtype=np.int32)
        self.neighbors = np.pad(self.neighbors, ((0, 0), (0, zeros_to_add)), "constant")

        offsets = np.matmul(offsets, box)
        self.offsets = np.pad(offsets, ((0, zeros_to_add), (0, 0)), "constant")

    def get_python_force_fn(self, atoms: Atoms) -> Callable:
        """Get the function that can be turned into a `PythonForce` instance
        for use in OpenMM simulations.

        Args:
            atoms (Atoms): atoms to be simulated in the OpenMM simulation

        Returns:
            Callable: Function that can be turned into a `PythonForce`.
                Returns the periodic version if `atoms.cell.array` has non-zero values.
                Otherwise, non-periodic.
        """
        self._initialize(atoms)

        if np.any(atoms.cell.array > 1e-6):
            if not self._atoms_is_periodic:
                # This can happen if it is not set to True by the user. Then ASECalculator and
                # this will give varying results, because in calculator.compute, we assume
                # that periodic is always True (which makes sense for
                log.warning(
                    f"Atoms instance has non-zero cell {atoms.cell}, but its pbc attribute is False. Not using periodic boundary conditions to calculate neighbor lists."
                )
            return self._python_force_fn_periodic
        else:
            return self._python_force_fn

    def _python_force_fn_periodic(self, state: State) -> tuple[float, np.ndarray]:
        """Function that can be turned into a `PythonForce` instance. Takes into
        the periodic boundary conditions.

        Args:
            state (State): state of simulation. Should contain periodicBoxVectors.

        Returns:
            tuple[float, np.ndarray]: tuple of energy in kJ/mol and forces in kJ/(mol nm)
        """

        # Use lax.asarray instead of jnp.asarray because it is faster?
        # However, we then need to convert the dtype still

        pos = jnp.asarray(
            state.getPositions(asNumpy=True).value_in_unit(angstrom), dtype=jnp.float64
        )
        box = jnp.asarray(
            state.getPeriodicBoxVectors(asNumpy=True).value_in_unit(angstrom),
            dtype=jnp.float64,
        )

        if (box != self.previous_cell).any():
            log.debug(
                "Cell changed, rechecking if neighbor list can be calculated with Jax"
            )
            neigbor_from_jax = neighbor_calculable_with_jax(box, self.r_max)
            if neigbor_from_jax != self.neigbor_from_jax:
                log.debug(
                    f"New neigbor_from_jax is {neigbor_from_jax}. Re-getting step fn"
                )
                self.neigbor_from_jax = neigbor_from_jax
                self._set_step_fn()
                self._allocate_neighbors(pos, box)
            self.previous_cell = box

        if self.neigbor_from_jax:
            results, self.neighbors = self.step(pos, self.neighbors, box)
            if self.neighbors.did_buffer_overflow:
                log.debug("Neighbor list overflowed, reallocating")
                self.neighbors = self.neighbor_fn.allocate(
                    space.transform(jnp.linalg.inv(box.T), pos)
                )
                results, self.neighbors = self.step(pos, self.neighbors, box)
        else:
            self._set_neighbors_and_offsets(pos, box)
            pos = np.array(space.transform(np.linalg.inv(box), pos))

            results = self.step(pos, self.neighbors, box, self.offsets)

        return results["energy"] * _energy_scaling, np.asarray(
            results["forces"]
        ) * _force_scaling

    def _python_force_fn(self, state: State) -> tuple[float, np.ndarray]:
        """Function that can be turned into a `PythonForce` instance. Does not
        take into account the periodic boundary conditions.

        Args:
            state (State): state of simulation.

        Returns:
            tuple[float, np.ndarray]: tuple of energy in kJ/mol and forces in kJ/(mol nm)
        """
        pos = jnp.asarray(
            state.getPositions(asNumpy=True).value_in_unit(angstrom), dtype=jnp.float64
        )

        results, self.neighbors = self.step(pos, self.neighbors, _dummy_box)
        if self.neighbors.did_buffer_overflow:
            self.neighbors = self.neighbor_fn.allocate(pos)
            results, self.neighbors = self.step(pos, self.neighbors, _dummy_box)

        return results["energy"] * _energy_scaling, np.asarray(
            results["forces"]
        ) * _force_scaling


def get_PythonForce_from_Apax(model_dir: str | Path, atoms: Atoms) -> PythonForce:
    """Get a PythonForce instance that can be used for OpenMM simulations from
    a trained Apax model and the Atoms instance that it will be used for.

    Args:
        model_dir (str | Path): path to Apax model directory
        atoms (Atoms): Atoms instance that will be simulated

    Returns:
        python_force (PythonForce): instantiated PythonForce.
            Its `usesPeriodicBoundaryConditions` attribute is set according to
            whether any `atoms.pbc` is True.
    """
    if not _openmm_imported:
        raise ImportError(
            "get_PythonForce_from_Apax requires OpenMM with at least version 8.5.0 to be installed."
        )

    log.debug(f"Creating PythonForce instance with atoms {atoms}")

    atoms_is_periodic = bool(np.any(atoms.pbc))

    interface = OpenMMInterface(model_dir)
    compute_fn = interface.get_python_force_fn(atoms)
    python_force = PythonForce(compute_fn)
    python_force.setUsesPeriodicBoundaryConditions(atoms_is_periodic)
    log.debug(f"Set PythonForce.usesPeriodicBoundaryConditions to {atoms_is_periodic}")
    return python_force
