from nu_waves.hamiltonian.base import HamiltonianBase
from nu_waves.models.spectrum import Spectrum
from nu_waves.state.wave_function import WaveFunction, Basis
from nu_waves.globals.backend import Backend
from nu_waves.models.mixing import Mixing
from nu_waves.utils.units import VCOEFF_EV, KM_TO_EVINV, GEV_TO_EV
from nu_waves.hamiltonian.executors import GroupedEventExecutor

from dataclasses import dataclass
import numpy as np
import time


@dataclass
class MatterLayer:
    rho_in_g_per_cm3: float     # matter density
    Ye: float                   # avg number of electrons per nucleon (0.5 by default)
    weight: float               # either absolute length [eV^-1] or fraction [0..1]


@dataclass
class MatterProfile:
    layers: list[MatterLayer]
    slicing: str  # "fraction" or "absolute"

    @staticmethod
    def from_fractions(rho_gcm3, Ye, fractions) -> "MatterProfile":
        fr = Backend.xp().asarray(fractions, float)
        Ls = [MatterLayer(r, y, w) for r, y, w in zip(rho_gcm3, Ye, fr)]
        return MatterProfile(Ls, "fraction")

    @staticmethod
    def from_segments(rho_gcm3, Ye, lengths_km) -> "MatterProfile":
        Ls = [MatterLayer(r, y, L) for r, y, L in zip(rho_gcm3, Ye, lengths_km)]
        return MatterProfile(Ls, "absolute")

    def resolve_dL(self, L_in_eV_inv):
        """
        Map total baselines (array-like) to per-layer ΔL_k arrays.
        Returns list of arrays, one per layer, each shaped like L_total_km_array.
        - fraction layers scale with L_total
        - absolute layers ignore L_total (assumed consistent with physics setup)
        """
        Ltot = Backend.xp().asarray(L_in_eV_inv, Backend.real_dtype())
        dLs = list()
        if self.slicing == "fraction":
            for layer in self.layers:
                dLs.append(layer.weight * Ltot)
        elif self.slicing == "absolute":
            for layer in self.layers:
                dLs.append(Backend.xp().full_like(Ltot, layer.weight * KM_TO_EVINV, dtype=Backend.real_dtype()))
        else:
            raise NotImplementedError("slicing must be 'fraction' or 'absolute'")

        return dLs


@dataclass(frozen=True, slots=True)
class PreparedMatterEventGroup:
    indices: any
    L: any
    inv2E: any
    flavor_emit: int
    flavor_det: int
    isAntiNu: bool


@dataclass(frozen=True, slots=True)
class CompiledConstantMatterBatch:
    n_events: int
    groups: tuple[PreparedMatterEventGroup, ...]


class ConstantMatterOptimizedExecutor(GroupedEventExecutor):
    def __init__(self, oscillator):
        super().__init__(oscillator=oscillator)
        self._preparedCache = {}

    def probabilityCompiled(self, compiled_batch):
        xp = Backend.xp()
        prepared = self._prepareCompiledBatch(compiled_batch)
        out = xp.empty((prepared.n_events,), dtype=Backend.real_dtype())

        U = self.hamiltonian.mixing.build_mixing_matrix()
        Ud = xp.conjugate(U.T)
        m2 = xp.asarray(self.hamiltonian.spectrum.get_m2(), dtype=U.dtype)
        H_vacuum_eV2 = U @ xp.diag(m2) @ Ud

        flavor_projector = xp.zeros((self.hamiltonian.n_neutrinos, self.hamiltonian.n_neutrinos), dtype=Backend.complex_dtype())
        flavor_projector[0, 0] = 1.0
        matter_potential = VCOEFF_EV * self.hamiltonian.constantDensity[0] * self.hamiltonian.constantDensity[1]

        for group in prepared.groups:
            signA = -1.0 if group.isAntiNu else 1.0
            Hvacuum = xp.conjugate(H_vacuum_eV2) if group.isAntiNu else H_vacuum_eV2
            H = Hvacuum[None, ...] * group.inv2E[:, None, None] + (signA * matter_potential) * flavor_projector[None, ...]
            eigen_values, eigen_vectors = self.hamiltonian._eigh(H)
            phases = xp.exp((-1j) * eigen_values * group.L[:, None])
            S = (eigen_vectors * phases[:, None, :]) @ xp.matrix_transpose(xp.conjugate(eigen_vectors))
            prob = xp.abs(S[:, group.flavor_det, group.flavor_emit]) ** 2
            out[group.indices] = prob

        return Backend.from_device(out)

    def _prepareCompiledBatch(self, compiled_batch):
        if isinstance(compiled_batch, CompiledConstantMatterBatch):
            return compiled_batch

        cache_key = (
            id(compiled_batch),
            getattr(Backend.xp(), "__name__", Backend.xp().__class__.__name__),
            str(getattr(Backend.xp(), "device", None)),
        )
        prepared = self._preparedCache.get(cache_key)
        if prepared is not None:
            return prepared

        xp = Backend.xp()
        groups = []
        for group in compiled_batch.groups:
            E = xp.asarray(group.E_GeV, dtype=Backend.real_dtype()) * GEV_TO_EV
            groups.append(PreparedMatterEventGroup(
                indices=xp.asarray(group.indices),
                L=xp.asarray(group.L_km, dtype=Backend.real_dtype()) * KM_TO_EVINV,
                inv2E=0.5 / E,
                flavor_emit=group.flavor_emit,
                flavor_det=group.flavor_det,
                isAntiNu=group.isAntiNu,
            ))

        prepared = CompiledConstantMatterBatch(
            n_events=compiled_batch.n_events,
            groups=tuple(groups),
        )
        self._preparedCache[cache_key] = prepared
        return prepared


class ConstantMatterExecutor(GroupedEventExecutor):
    def probabilityCompiled(self, compiled_batch):
        xp = Backend.xp()
        out = xp.empty((compiled_batch.n_events,), dtype=Backend.real_dtype())
        original_antineutrino = self.hamiltonian._antineutrino

        try:
            for group in compiled_batch.groups:
                self.hamiltonian.set_antineutrino(group.isAntiNu)
                L = xp.asarray(group.L_km, dtype=Backend.real_dtype()) * KM_TO_EVINV
                E = xp.asarray(group.E_GeV, dtype=Backend.real_dtype()) * GEV_TO_EV
                S = self.hamiltonian.get_barger_propagator(L=L, E=E)
                prob = xp.abs(S[:, group.flavor_det, group.flavor_emit]) ** 2

                indices = xp.asarray(group.indices)
                out[indices] = prob
        finally:
            self.hamiltonian.set_antineutrino(original_antineutrino)

        return Backend.from_device(out)


class LayeredMatterExecutor(GroupedEventExecutor):
    def probabilityCompiled(self, compiled_batch):
        out = np.empty(compiled_batch.n_events, dtype=float)
        original_antineutrino = self.hamiltonian._antineutrino

        try:
            for group in compiled_batch.groups:
                self.hamiltonian.set_antineutrino(group.isAntiNu)
                probs = self.oscillator._probability_legacy(
                    L_km=group.L_km,
                    E_GeV=group.E_GeV,
                    flavor_emit=group.flavor_emit,
                    flavor_det=group.flavor_det,
                )
                out[group.indices] = np.asarray(probs, dtype=float).reshape(-1)
        finally:
            self.hamiltonian.set_antineutrino(original_antineutrino)

        return out


class Hamiltonian(HamiltonianBase):
    """
        Matter Hamiltonian with Barger layer product.


    """
    def __init__(self, mixing: Mixing, spectrum: Spectrum, antineutrino: bool):
        super().__init__(mixing=mixing, spectrum=spectrum, antineutrino=antineutrino)
        self.enableConstantMatterBatchOptimization = False
        self.enableEighProfiling = False
        self.resetProfiling()
        self._constant_profile = None
        self._matter_profile = None
        self.set_constant_density(rho_in_g_per_cm3=0)

    def makeExecutor(self, oscillator):
        if self._matter_profile is None and self.enableConstantMatterBatchOptimization:
            return ConstantMatterOptimizedExecutor(oscillator=oscillator)
        if self._matter_profile is None:
            return ConstantMatterExecutor(oscillator=oscillator)
        return LayeredMatterExecutor(oscillator=oscillator)

    @property
    def constantDensity(self):
        return self._constant_profile

    def resetProfiling(self):
        self._profiling = {
            "eighCalls": 0,
            "eighEvents": 0,
            "eighTimeSeconds": 0.0,
        }

    def getProfiling(self):
        return dict(self._profiling)

    def _eigh(self, H):
        xp = Backend.xp()
        if not self.enableEighProfiling:
            return xp.linalg.eigh(H)

        t0 = time.perf_counter()
        eigen_values, eigen_vectors = xp.linalg.eigh(H)
        elapsed = time.perf_counter() - t0
        self._profiling["eighCalls"] += 1
        self._profiling["eighEvents"] += int(H.shape[0])
        self._profiling["eighTimeSeconds"] += elapsed
        return eigen_values, eigen_vectors

    def set_constant_density(self, rho_in_g_per_cm3: float, Ye: float = 0.5):
        self._constant_profile = (rho_in_g_per_cm3, Ye)

    def set_matter_profile(self, matter_profile: MatterProfile):
        self._matter_profile = matter_profile

    def get_barger_propagator(self, L, E):
        xp = Backend.xp()

        # make sure they are matching the backend (no copy if already matching)
        E = xp.asarray(E)
        L = xp.asarray(L)

        U = self._mixing.build_mixing_matrix()
        if self._antineutrino:
            U = xp.conjugate(U)
        Ud = xp.conjugate(U.T)
        m2 = xp.asarray(self.spectrum.get_m2(), dtype=U.dtype)
        H_vacuum_eV2 = U @ xp.diag(m2) @ Ud

        import numpy as np
        flavor_projector = np.zeros((self.n_neutrinos, self.n_neutrinos), dtype=np.complex128)
        flavor_projector[0, 0] = 1.0  # only electron neutrinos feel the potential

        # transferring back to device if needed
        flavor_projector = xp.asarray(flavor_projector, dtype=Backend.complex_dtype())

        signA = -1.0 if self._antineutrino else 1.0
        inv2E = (0.5 / E)[:, None, None] # used for the hamiltonian

        def calc_S(L_, rho_, Ye_):
            matter_potential = signA * (VCOEFF_EV * rho_ * Ye_)
            H = H_vacuum_eV2[None, ...] * inv2E + matter_potential * flavor_projector[None, ...]
            eigen_values, eigen_vectors = self._eigh(H)
            phases = xp.exp((-1j) * eigen_values * L_[..., None])
            S = (eigen_vectors * phases[:, None, :]) @ xp.matrix_transpose(xp.conjugate(eigen_vectors))
            return S

        if self._matter_profile is not None:
            L_slices = self._matter_profile.resolve_dL(L)
            # Create a (1, n_nu, n_nu) identity matrix in complex dtype for initialization
            S = xp.eye(self.n_neutrinos, dtype=Backend.complex_dtype())[None, ...]
            # Broadcast the identity across all energies and make it writable (hence the .copy)
            S = xp.copy(xp.broadcast_to(S, (E.shape[0], self.n_neutrinos, self.n_neutrinos)))
            for k, layer in enumerate(self._matter_profile.layers):
                S = calc_S(L_slices[k], layer.rho_in_g_per_cm3, layer.Ye) @ S
        else:
            rho, Ye = self._constant_profile
            S = calc_S(L, rho, Ye)

        return S
