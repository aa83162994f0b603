# Copyright 2021-2025 The PySCF Developers. All Rights Reserved.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

'''
The RHF implementation in this module prioritizes a reduced GPU memory footprint
at the cost of efficiency.
'''

import numpy as np
import cupy as cp
from pyscf import lib
from pyscf.scf import hf as hf_cpu
from pyscf.scf import chkfile
from gpu4pyscf.lib.cupy_helper import asarray, pack_tril, unpack_tril, tag_array
from gpu4pyscf.lib.diis import DIIS
from gpu4pyscf.scf import diis, jk, j_engine, hf
from gpu4pyscf.lib import logger

__all__ = [
    'RHF',
]

def kernel(mf, dm0=None, conv_tol=1e-10, conv_tol_grad=None,
          dump_chk=True, callback=None, conv_check=True, **kwargs):
    mol = mf.mol
    verbose = mf.verbose
    log = logger.new_logger(mol, verbose)
    cput0 = cput1 = log.init_timer()

    mf.dump_flags()
    mf.build(mf.mol)
    if log.verbose >= logger.DEBUG1:
        mem_avail = log.print_mem_info()
        log.debug1('available GPU memory for SCF: %.3f GB', mem_avail/1e9)

    conv_tol = mf.conv_tol
    if(conv_tol_grad is None):
        conv_tol_grad = conv_tol**.5
        log.info('Set gradient conv threshold to %g', conv_tol_grad)

    if dm0 is None:
        if mf.mo_coeff is not None and mf.mo_occ is not None:
            # Initial guess from existing wavefunction
            dm0 = mf.make_rdm1()
        else:
            dm0 = mf.get_init_guess(mol, mf.init_guess)
            if hasattr(dm0, 'mo_coeff') and dm0.mo_coeff.size > dm0.size:
                # Discard the mo_coeff attribute, force the vxc evaluator to
                # eval_rho using dm directly 
                dm0 = asarray(dm0, order='C')
            else:
                dm0 = mf.make_wfn(dm0.mo_coeff, dm0.mo_occ)
        cput1 = log.timer_debug1('generating initial guess', *cput1)

    h1e = mf.get_hcore() # On CPU
    cput1 = log.timer_debug1('hcore', *cput1)
    dm, dm0 = dm0, None # on GPU
    vhf = mf.get_veff(mol, dm) # On CPU
    s1e = mf.get_ovlp()
    x_orth = mf.check_linear_dependency(s1e, log).get()
    s1e = None
    e_tot = mf.energy_tot(dm, h1e, vhf)
    log.info('init E= %.15g', e_tot)
    scf_conv = False

    # Skip SCF iterations. Compute only the total energy of the initial density
    if mf.max_cycle <= 0:
        mf.e_tot = e_tot
        if mf.mo_coeff is None:
            fock = mf.get_fock(h1e, s1e, vhf, dm)  # = h1e + vhf, no DIIS
            mf.mo_energy, mf.mo_coeff = mf.eig(fock, s1e, x=x_orth)
            fock = None
            mf.mo_occ = mf.get_occ(mf.mo_energy, mf.mo_coeff)
            mf.converged = scf_conv
        return e_tot

    if isinstance(mf.diis, DIIS):
        mf_diis = mf.diis
    elif mf.diis:
        mf_diis = mf.DIIS(mf, mf.diis_file)
        mf_diis.space = mf.diis_space
        mf_diis.rollback = mf.diis_space_rollback
        # The Corth in DIIS calls the eigh function that does not overwrite
        # the input matrices. The input can be overwritten so as to reduce GPU
        # memory footprint.
        mf_diis.Corth = x_orth
    else:
        mf_diis = None

    dump_chk = dump_chk and mf.chkfile is not None
    if dump_chk:
        log.warn('Low-mem SCF does not support dumping chkfile')
    cp.get_default_memory_pool().free_all_blocks()
    if log.verbose >= logger.DEBUG1:
        mem_avail = log.print_mem_info()
        log.debug1('available GPU memory after SCF initialization: %.3f GB', mem_avail/1e9)
    t1 = log.timer('SCF initialization', *cput1)
    natm = mol.natm

    for cycle in range(mf.max_cycle):
        t0 = t1
        mo_coeff = mo_occ = mo_energy = fock = None
        last_hf_e = e_tot

        fock = mf.get_fock(h1e, s1e, vhf, dm, cycle, mf_diis) # on GPU
        t1 = log.timer_debug1('DIIS', *t1)
        cp.get_default_memory_pool().free_all_blocks()
        mo_energy, mo_coeff = mf.eig(fock, s1e, x=x_orth) # on GPU
        fock = None
        t1 = log.timer_debug1('eig', *t1)

        mo_occ = mf.get_occ(mo_energy, mo_coeff) # on GPU
        # Update mo_coeff and mo_occ, allowing get_veff to generate DMs on the fly
        dm, dm_last = mf.make_wfn(mo_coeff, mo_occ), dm # on GPU
        vhf = mf.get_veff(mol, dm, dm_last, vhf) # on CPU
        cp.get_default_memory_pool().free_all_blocks()
        if log.verbose >= logger.DEBUG1:
            mem_avail = log.print_mem_info()
            log.debug1('available GPU memory: %.3f GB', mem_avail/1e9)

        fock = mf.get_fock(h1e, None, vhf)  # = h1e + vhf, no DIIS
        norm_gorb = cp.linalg.norm(mf.get_grad(mo_coeff, mo_occ, fock))
        fock = None
        e_tot = mf.energy_tot(dm, h1e, vhf)
        t1 = log.timer(f'cycle={cycle+1}', *t0)
        log.info('cycle= %d E= %.15g  delta_E= %4.3g',
                 cycle+1, e_tot, e_tot-last_hf_e)

        e_diff = abs(e_tot-last_hf_e)
        if e_diff < conv_tol and norm_gorb/natm**.5 < conv_tol_grad:
            scf_conv = True
            break
    else:
        log.warn("SCF failed to converge")

    if scf_conv and mf.level_shift is not None:
        # An extra diagonalization, to remove level shift
        fock = mf.get_fock(h1e, s1e, vhf)

        cp.get_default_memory_pool().free_all_blocks()
        mo_energy, mo_coeff = mf.eig(fock, s1e, x=x_orth)
        fock = None
        mo_occ = mf.get_occ(mo_energy, mo_coeff)
        dm, dm_last = mf.make_wfn(mo_coeff, mo_occ), dm
        vhf = mf.get_veff(mol, dm, dm_last, vhf)
        cp.get_default_memory_pool().free_all_blocks()

        fock = mf.get_fock(h1e, None, vhf)
        norm_gorb = cp.linalg.norm(mf.get_grad(mo_coeff, mo_occ, fock))
        fock = None
        e_tot, last_hf_e = mf.energy_tot(dm, h1e, vhf), e_tot

        conv_tol = conv_tol * 10
        conv_tol_grad = conv_tol_grad * 3
        if abs(e_tot-last_hf_e) < conv_tol or norm_gorb < conv_tol_grad:
            scf_conv = True
        else:
            log.warn("Level-shifted SCF extra cycle failed to converge")
            scf_conv = False
        log.info('Extra cycle= %d E= %.15g  delta_E= %4.3g',
                 cycle+1, e_tot, e_tot-last_hf_e)

    mf.converged = scf_conv
    mf.e_tot = e_tot
    mf.mo_energy = mo_energy
    mf.mo_coeff = mo_coeff
    mf.mo_occ = mo_occ
    log.timer('SCF', *cput0)
    mf._finalize()
    return e_tot

class WaveFunction:
    def __init__(self, mo_coeff, mo_occ):
        self.mo_coeff = mo_coeff
        self.mo_occ = mo_occ

    def make_rdm1(self):
        raise NotImplementedError

class RHFWfn(WaveFunction):
    def make_rdm1(self):
        mo_coeff = cp.asarray(self.mo_coeff)
        mo_occ = cp.asarray(self.mo_occ)
        is_occ = mo_occ > 0
        mocc = mo_coeff[:, is_occ]
        mocc *= mo_occ[is_occ]**.5
        dm = mocc.dot(mocc.conj().T)
        return dm

class CDIIS(diis.CDIIS):
    def update(self, s, d, f, *args, **kwargs):
        out = super().update(s, d, f, *args, **kwargs)
        if isinstance(self.Corth, cp.ndarray):
            # Store Corth on host to reduce GPU memory pressure
            self.Corth = self.Corth.get()
        return out

class RHF(hf.RHF):
    '''The low-memory RHF class for large systems. Not fully compatible with the
    default RHF class in hf.py . Some methods return the lower-triangular part
    of the square matrix; some methods are simplified.
    '''

    DIIS = CDIIS

    kernel = scf = kernel
    density_fit              = NotImplemented
    as_scanner               = NotImplemented
    newton                   = NotImplemented
    x2c = x2c1e = sfx2c1e    = NotImplemented
    stability                = NotImplemented

    def check_sanity(self):
        mol = self.mol
        if mol.spin != 0:
            raise RuntimeError(
                f'Invalid number of electrons {mol.nelectron} for RHF method.')
        return super(hf.RHF, self).check_sanity()

    def get_hcore(self, mol=None):
        '''The lower triangular part of Hcore'''
        if mol is None:
            mol = self.mol
        hcore = hf.get_hcore(mol)
        return pack_tril(hcore).get()

    def get_veff(self, mol, dm_or_wfn, dm_last=None, vhf_last=None, hermi=1):
        '''Constructus the lower-triangular part of the Veff matrix.'''
        log = logger.new_logger(mol, self.verbose)
        cput0 = log.init_timer()
        if dm_or_wfn is None:
            dm_or_wfn = self.make_wfn(self.mo_coeff, self.mo_occ)

        omega = mol.omega
        if omega in self._opt_gpu:
            vhfopt = self._opt_gpu[omega]
        else:
            self._opt_gpu[omega] = vhfopt = jk._VHFOpt(
                mol, self.direct_scf_tol).build()
        if omega in self._opt_jengine:
            jopt = self._opt_jengine[omega]
        else:
            self._opt_jengine[omega] = jopt = j_engine._VHFOpt(mol, self.direct_scf_tol).build()

        #:vj, vk = vhfopt.get_jk(dm, hermi, True, True, log)
        dm = lambda: self._delta_rdm1(dm_or_wfn, dm_last, jopt)
        vj = jopt.get_j(dm, log)
        assert vj.ndim == 3
        vj = jopt.apply_coeff_CT_mat_C(vj)
        ecoul = _trace_ecoul(vj[0], dm_or_wfn, dm_last, vhf_last)
        vhf, vj = vj, None

        dm = lambda: self._delta_rdm1(dm_or_wfn, dm_last, vhfopt)
        vk = vhfopt.get_k(dm, hermi, log, omega, None, None)
        assert vk.ndim == 3
        vk = vhfopt.apply_coeff_CT_mat_C(vk)
        vk *= -.5

        vhf += vk
        vhf = pack_tril(vhf[0])

        if dm_last is not None:
            vhf += asarray(vhf_last)
        vhf = vhf.get()
        if ecoul is not None:
            vhf = lib.tag_array(vhf, ecoul=ecoul)
        log.timer('veff', *cput0)
        return vhf

    def _delta_rdm1(self, dm_or_wfn, dm_last, vhfopt):
        '''Construct dm-dm_last suitable for the vhfopt.get_jk method'''
        if dm_or_wfn is None:
            dm = self.make_rdm1()
        elif isinstance(dm_or_wfn, WaveFunction):
            dm = dm_or_wfn.make_rdm1()
        else:
            dm = dm_or_wfn
            if dm_last is not None:
                dm = dm.copy()

        if isinstance(dm_last, WaveFunction):
            dm_last = dm_last.make_rdm1()
        if dm_last is not None:
            dm -= cp.asarray(dm_last)

        dm = vhfopt.apply_coeff_C_mat_CT(dm)
        return dm[None] # Add an additional axis, as required by the get_jk function

    def make_wfn(self, mo_coeff, mo_occ):
        return RHFWfn(mo_coeff, mo_occ)

    def make_rdm1(self, mo_coeff=None, mo_occ=None):
        if mo_coeff is None: mo_coeff = self.mo_coeff
        if mo_occ is None: mo_occ = self.mo_occ
        return self.make_wfn(mo_coeff, mo_occ).make_rdm1()

    def get_fock(self, h1e=None, s1e=None, vhf=None, dm_or_wfn=None, cycle=-1, diis=None,
                 diis_start_cycle=None, level_shift_factor=None, damp_factor=None, fock_last=None):
        '''Return Fock matrix in square storage'''
        if h1e is None: h1e = self.get_hcore()
        if vhf is None: vhf = self.get_veff(self.mol, dm_or_wfn)
        if not isinstance(h1e, cp.ndarray): h1e = asarray(h1e)
        if not isinstance(vhf, cp.ndarray): vhf = asarray(vhf)
        # h1e and vhf must be both in tril storage or square-matrix storage
        assert h1e.shape[-1] == vhf.shape[-1]
        assert h1e.ndim == vhf.ndim == 1
        nao = int((h1e.size*2)**.5)
        f = cp.empty((nao, nao))
        f = unpack_tril(asarray(h1e + vhf), out=f)
        if cycle < 0 and diis is None:  # Not inside the SCF iteration
            return f

        if s1e is None: s1e = self.get_ovlp()
        if dm_or_wfn is None:
            dm = self.make_rdm1()
        elif isinstance(dm_or_wfn, WaveFunction):
            dm = dm_or_wfn.make_rdm1()
        else:
            dm = dm_or_wfn
        if not isinstance(s1e, cp.ndarray): s1e = asarray(s1e)
        if not isinstance(dm, cp.ndarray): dm = asarray(dm)
        # Ensure overlap in square-matrix format
        if s1e.shape[-1] != f.shape[-1]:
            s1e = unpack_tril(s1e)

        if diis_start_cycle is None:
            diis_start_cycle = self.diis_start_cycle
        if damp_factor is None:
            damp_factor = self.damp
        if damp_factor is not None:
            raise NotImplementedError('SCF damping')
        if diis is not None and cycle >= diis_start_cycle:
            f = diis.update(s1e, dm, f)
            cp.get_default_memory_pool().free_all_blocks()

        if level_shift_factor is None:
            level_shift_factor = self.level_shift
        if level_shift_factor is not None:
            dm_vir, dm = dm, None
            #:f = hf.level_shift(s1e, dm*.5, f, level_shift_factor)
            dm_vir = s1e.dot(dm_vir)
            dm_vir = dm_vir.dot(s1e)
            dm_vir *= -.5
            dm_vir += s1e
            dm_vir *= level_shift_factor
            f += dm_vir
        return f

    def energy_elec(self, dm_or_wfn, h1e, vhf):
        '''
        electronic energy
        '''
        assert h1e.ndim == vhf.ndim == 1
        if isinstance(dm_or_wfn, WaveFunction):
            dm = dm_or_wfn.make_rdm1()
        else:
            dm = dm_or_wfn
        assert dm.dtype == np.float64
        dm_tril = pack_tril(dm)
        nao = dm.shape[0]
        i = cp.arange(nao)
        diag = i*(i+1)//2 + i
        dm_tril[diag] *= .5
        dm_tril = dm_tril.get()
        e1 = float(h1e.dot(dm_tril) * 2)
        e2 = float(vhf.dot(dm_tril))
        vtmp = h1e * 2
        vtmp += vhf
        e_tot = float(vtmp.dot(dm_tril))
        ecoul = vhf.ecoul.real
        exx = e2 - ecoul
        self.scf_summary['e1'] = e1
        self.scf_summary['e2'] = e2
        self.scf_summary['coul'] = ecoul
        self.scf_summary['exc'] = exx
        logger.debug(self, 'E1 = %s  E2 = %s  Ecoul = %s  Exc = %s', e1, e2, ecoul, exx)
        return e_tot, e2

    def to_cpu(self):
        raise NotImplementedError

def _trace_ecoul(vj, dm_or_wfn, dm_last, vhf_last):
    if dm_last is not None:
        if isinstance(dm_or_wfn, WaveFunction):
            ddm = dm_or_wfn.make_rdm1()
        else:
            ddm = dm_or_wfn.copy()
        if isinstance(dm_last, WaveFunction):
            dm_last = dm_last.make_rdm1()
        ddm -= dm_last
        ecoul = cp.einsum('ij,ji->', dm_last, vj).real.get()
        ecoul += cp.einsum('ij,ji->', ddm, vj).real.get() * .5
        ecoul += vhf_last.ecoul
    else:
        if isinstance(dm_or_wfn, WaveFunction):
            ddm = dm_or_wfn.make_rdm1()
        else:
            ddm = dm_or_wfn
        ecoul = cp.einsum('ij,ji->', ddm, vj).real.get() * .5
    return ecoul
