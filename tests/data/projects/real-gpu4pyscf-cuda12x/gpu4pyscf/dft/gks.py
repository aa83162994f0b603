# Copyright 2021-2024 The PySCF Developers. All Rights Reserved.
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

import cupy as cp
from pyscf import lib
from pyscf.dft import gks
from gpu4pyscf.dft import numint2c
from gpu4pyscf.dft import rks
from gpu4pyscf.scf import hf
from gpu4pyscf.scf.ghf import GHF
from gpu4pyscf.lib import logger
from gpu4pyscf.lib import utils
from gpu4pyscf.lib.cupy_helper import tag_array, asarray


def get_veff(ks, mol=None, dm=None, dm_last=None, vhf_last=None, hermi=1):
    '''Coulomb + XC functional

    .. note::
        This function will change the ks object.

    Args:
        ks : an instance of :class:`RKS`
            XC functional are controlled by ks.xc attribute.  Attribute
            ks.grids might be initialized.
        dm : ndarray or list of ndarrays
            A density matrix or a list of density matrices

    Kwargs:
        dm_last : ndarray or a list of ndarrays
            The density matrix baseline.  If not 0, this function computes the
            increment of HF potential w.r.t. the reference HF potential matrix.
        vhf_last : ndarray or a list of ndarrays
            The reference Vxc potential matrix.
        hermi : int
            Whether J, K matrix is hermitian

            | 0 : no hermitian or symmetric
            | 1 : hermitian
            | 2 : anti-hermitian

    Returns:
        matrix Veff = J + Vxc.  Veff can be a list matrices, if the input
        dm is a list of density matrices.
    '''
    if mol is None: mol = ks.mol
    if dm is None: dm = ks.make_rdm1()
    log = logger.new_logger(ks)
    t0 = log.init_timer()
    ks.initialize_grids(mol, dm)

    if hermi == 2:  # because rho = 0
        n, exc, vxc = 0, 0, 0
    else:
        max_memory = ks.max_memory - lib.current_memory()[0]
        ni = ks._numint
        if ni.collinear[0].lower() != 'm':
            raise NotImplementedError('Only multi-colinear GKS is implemented')
        n, exc, vxc = ni.get_vxc(mol, ks.grids, ks.xc, dm,
                                 hermi=hermi, max_memory=max_memory)
        log.debug('nelec by numeric integration = %s', n)
        if ks.do_nlc():
            if ni.libxc.is_nlc(ks.xc):
                xc = ks.xc
            else:
                assert ni.libxc.is_nlc(ks.nlc)
                xc = ks.nlc
            n, enlc, vnlc = ni.nr_nlc_vxc(mol, ks.nlcgrids, xc, dm,
                                          hermi=hermi, max_memory=max_memory)
            exc += enlc
            vxc += vnlc
            log.debug('nelec with nlc grids = %s', n)
    t1 = log.timer('vxc', *t0)

    dm_orig = dm = cp.asarray(dm)
    vj_last = getattr(vhf_last, 'vj', None)
    ecoul = None
    if vj_last is not None:
        dm_last = cp.asarray(dm_last)
        dm = dm - dm_last
    else:
        dm_last = None
    vhf = vj = ks.get_j(mol, dm, hermi)
    ecoul = hf._trace_ecoul(vj, dm, dm_last, vhf_last)
    cput2 = log.timer_debug1('vj', *t1)

    if ni.libxc.is_hybrid_xc(ks.xc):
        omega, alpha, hyb = ni.rsh_and_hybrid_coeff(ks.xc, spin=mol.spin)
        vk = ks.get_k(mol, dm, hermi, omega, alpha, hyb)
        vhf -= vk
        if vj_last is not None:
            vhf += asarray(vhf_last.vj)
        vxc += vhf
        exc += float(cp.einsum('ij,ji', dm_orig, vhf).real.get()) * .5
        if ecoul is not None:
            exc -= ecoul
        log.timer_debug1('vk', *cput2)
    else:
        if vj_last is not None:
            vhf += asarray(vhf_last.vj)
        vxc += vhf
    t0 = log.timer('veff', *t0)
    vxc = tag_array(vxc, ecoul=ecoul, exc=exc, vj=vhf)
    return vxc


class GKS(rks.KohnShamDFT, GHF):

    # to_gpu = utils.to_gpu
    to_gpu = NotImplemented
    device = utils.device

    def __init__(self, mol, xc='LDA,VWN'):
        GHF.__init__(self, mol)
        rks.KohnShamDFT.__init__(self, xc)
        self._numint = numint2c.NumInt2C()

    def dump_flags(self, verbose=None):
        GHF.dump_flags(self, verbose)
        rks.KohnShamDFT.dump_flags(self, verbose)
        logger.info(self, 'collinear = %s', self._numint.collinear)
        if self._numint.collinear[0] == 'm':
            logger.info(self, 'mcfun spin_samples = %s', self._numint.spin_samples)
            logger.info(self, 'mcfun collinear_thrd = %s', self._numint.collinear_thrd)
            logger.info(self, 'mcfun collinear_samples = %s', self._numint.collinear_samples)
        return self

    @property
    def collinear(self):
        return self._numint.collinear
    @collinear.setter
    def collinear(self, val):
        self._numint.collinear = val

    @property
    def spin_samples(self):
        return self._numint.spin_samples
    @spin_samples.setter
    def spin_samples(self, val):
        self._numint.spin_samples = val

    get_veff = get_veff
    reset = rks.RKS.reset
    energy_elec = rks.RKS.energy_elec
    nuc_grad_method = NotImplemented

    def to_hf(self):
        '''Convert to GHF object.'''
        from gpu4pyscf import scf
        return self._transfer_attrs_(scf.GHF(self.mol))
    
    def to_cpu(self):
        mf = gks.GKS(self.mol, xc=self.xc)
        utils.to_cpu(self, out=mf)
        mf.collinear = self.collinear
        mf.spin_samples = self.spin_samples
        return mf
