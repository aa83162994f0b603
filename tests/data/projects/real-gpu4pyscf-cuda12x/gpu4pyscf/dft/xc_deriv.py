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

'''
Transform XC functional derivatives between different representations
'''
import numpy as np
import cupy as cp
from gpu4pyscf.lib.cupy_helper import contract, ndarray

def transform_vxc(rho, vxc, xctype, spin=0, work=None):
    r'''
    The output tensor has the shape:
        * spin polarized
            LDA : [2,1,N]
            GGA : [2,4,N]
            MGGA: [2,5,N]
        * spin unpolarized
            LDA : [1,N]
            GGA : [4,N]
            MGGA: [5,N]
    '''
    rho = cp.asarray(rho, order='C')
    if xctype == 'GGA':
        order = 1
        nvar = 4
        fr = vxc[0].T
        fg = vxc[1].T
    elif xctype == 'MGGA':
        order = 2
        nvar = 5
        fr = vxc[0].T
        fg = vxc[1].T
        ft = vxc[3].T
    else:  # LDA
        order = 0
        nvar = 1
        fr = vxc[0].T

    ngrids = rho.shape[-1]
    if spin == 1:
        if order == 0:
            vp = fr.reshape(2, nvar, ngrids)
        else:
            vp = cp.empty((2, nvar, ngrids))
            vp[:,0] = fr
            #vp[:,1:4] = cp.einsum('abg,axg->bxg', _stack_fg(fg), rho[:,1:4])
            buf = ndarray((10, ngrids), buffer=work)
            buf1 = buf[4:].reshape(2, 3, ngrids)
            fg = _stack_fg(fg, out=buf)
            cp.multiply(fg[0,:,None], rho[0,1:4], out=vp[:,1:4])
            vp[:,1:4] += cp.multiply(fg[1,:,None], rho[1,1:4], out=buf1)
        if order > 1:
            vp[:,4] = ft
    else:
        if order == 0:
            vp = fr.reshape(nvar, ngrids)
        else:
            vp = cp.empty((nvar, ngrids))
            vp[0] = fr
            # vp[1:4] = 2 * fg * rho[1:4]
            cp.multiply(fg, rho[1:4], out=vp[1:4])
            vp[1:4] *= 2
        if order > 1:
            vp[4] = ft
    return vp

def transform_fxc(rho, vxc, fxc, xctype, spin=0, work=None):
    r'''
    The output tensor has the shape:
        * spin polarized
            LDA : [2,1,2,1,N]
            GGA : [2,4,2,4,N]
            MGGA: [2,5,2,5,N]
        * spin unpolarized is not implemented
    '''
    rho = cp.asarray(rho, order='C')
    if xctype == 'GGA':
        order = 1
        nvar = 4
        fg = vxc[1].T
        frr = fxc[0].T
        frg = fxc[1].T
        fgg = fxc[2].T
    elif xctype == 'MGGA':
        order = 2
        nvar = 5
        fg = vxc[1].T
        frr, frg, fgg, ftt, frt, fgt = [fxc[i].T for i in [0, 1, 2, 4, 6, 9]]
    else:  # LDA
        order = 0
        nvar = 1
        frr = fxc[0].T

    ngrids = rho.shape[-1]
    if spin == 1:
        if order == 0:
            vp = _stack_frr(frr).reshape(2,nvar, 2,nvar, ngrids)
        else:
            vp = cp.empty((nvar, nvar, 2,2,ngrids))
            _stack_frr(frr, out=vp[0,0])
            i3 = cp.arange(3)
            qgg = work = _stack_fgg(fgg, out=work)
            #:qgg = cp.einsum('abcdg,axg->xbcdg', qgg, rho[:,1:4])
            #:qgg = cp.einsum('xbcdg,cyg->xybdg', qgg, rho[:,1:4])
            #:qgg[i3,i3] += _stack_fg(fg)
            #:vp[1:4,1:4] = qgg
            tmp  = qgg[0] * rho[0,1:4,None,None,None]
            tmp += qgg[1] * rho[1,1:4,None,None,None]
            qgg = vp[1:4,1:4]
            cp.multiply(tmp[:,None,:,0], rho[0,1:4,None,None], out=qgg)
            qgg += tmp[:,None,:,1] * rho[1,1:4,None,None]
            qgg[i3,i3] += _stack_fg(fg, out=work)

            frg = frg.reshape(2,3,ngrids)
            qrg = _stack_fg(frg, axis=1, out=work)
            #:vp[0,1:4] = cp.einsum('rabg,axg->xrbg', qrg, rho[:,1:4])
            vp[0,1:4]  = qrg[:,0] * rho[0,1:4,None,None]
            vp[0,1:4] += qrg[:,1] * rho[1,1:4,None,None]
            vp[1:4,0] = vp[0,1:4].transpose(0,2,1,3)

        if order > 1:
            fgt = fgt.reshape(3,2,ngrids)
            qgt = _stack_fg(fgt, axis=0, out=work)
            #:vp[1:4,4] = cp.einsum('abrg,axg->xbrg', qgt, rho[:,1:4])
            vp[1:4,4]  = qgt[0] * rho[0,1:4,None,None]
            vp[1:4,4] += qgt[1] * rho[1,1:4,None,None]
            vp[4,1:4] = vp[1:4,4].transpose(0,2,1,3)

            qrt = frt.reshape(2,2,ngrids)
            vp[0,4] = qrt
            vp[4,0] = qrt.transpose(1,0,2)

            vp[4,4] = _stack_frr(ftt)

        if order != 0:
            vp = vp.transpose(2,0,3,1,4)

    else:
        if order == 0:
            vp = frr.reshape(nvar, nvar, ngrids)
        else:
            vp = cp.empty((nvar, nvar, ngrids))
            vp[0,0] = frr
            i3 = cp.arange(3)
            #:qgg = 4 * fgg * rho[1:4] * rho[1:4,None]
            #:qgg[i3,i3] += fg * 2
            #:vp[1:4,1:4] = qgg
            qgg = vp[1:4,1:4]
            cp.multiply(rho[1:4], rho[1:4,None], qgg)
            qgg *= fgg
            qgg *= 4
            qgg[i3,i3] += fg * 2
            #:vp[0,1:4] = vp[1:4,0] = 2 * frg * rho[1:4]
            cp.multiply(frg, rho[1:4], out=vp[0,1:4])
            vp[0,1:4] *= 2
            vp[1:4,0] = vp[0,1:4]
        if order > 1:
            #:vp[4,1:4] = vp[1:4,4] = 2 * fgt * rho[1:4]
            cp.multiply(fgt, rho[1:4], out=vp[4,1:4])
            vp[4,1:4] *= 2
            vp[1:4,4] = vp[4,1:4]
            vp[0,4] = frt
            vp[4,0] = frt
            vp[4,4] = ftt
    return vp

def transform_kxc(rho, fxc, kxc, xctype, spin=0):
    r'''
    The output tensor has the shape:
        * spin polarized
            LDA : [2,1,2,1,2,1,N]
            GGA : [2,4,2,4,2,4,N]
            MGGA: [2,5,2,5,2,5,N]
        * spin unpolarized
            LDA : [1,1,1,N]
            GGA : [4,4,4,N]
            MGGA: [5,5,5,N]
    '''
    rho = cp.asarray(rho, order='C')
    if xctype == 'GGA':
        order = 1
        nvar = 4
        frg = fxc[1].T
        fgg = fxc[2].T
        frrr, frrg, frgg, fggg = [x.T for x in kxc[:4]]
    elif xctype == 'MGGA':
        order = 2
        nvar = 5
        frg = fxc[1].T
        fgg = fxc[2].T
        fgt = fxc[9].T
        frrr, frrg, frgg, fggg, frrt, frgt, frtt, fggt, fgtt, fttt = \
                [kxc[i].T for i in [0, 1, 2, 3, 5, 7, 10, 12, 15, 19]]
    else:  # LDA
        order = 0
        nvar = 1
        frrr = kxc[0].T

    ngrids = rho.shape[-1]
    if spin == 1:
        if order == 0:
            vp = _stack_frrr(frrr).reshape(2,nvar, 2,nvar, 2,nvar, ngrids).transpose(1,3,5,0,2,4,6)
        else:
            vp = cp.empty((2,nvar, 2,nvar, 2,nvar, ngrids)).transpose(1,3,5,0,2,4,6)
            vp[0,0,0] = _stack_frrr(frrr)
            i3 = cp.arange(3)
            qggg = _stack_fggg(fggg)
            qggg = cp.einsum('abcdefg,axg->xbcdefg', qggg, rho[:,1:4])
            qggg = cp.einsum('xbcdefg,cyg->xybdefg', qggg, rho[:,1:4])
            qggg = cp.einsum('xybdefg,ezg->xyzbdfg', qggg, rho[:,1:4])
            # qggg = _stack_fggg(fggg, rho=rho).transpose(1,3,5,0,2,4,6)
            # qggg = cp.asarray(qggg)
            qgg = _stack_fgg(fgg)
            qgg = cp.einsum('abcdg,axg->xbcdg', qgg, rho[:,1:4])
            for i in range(3):
                qggg[:,i,i] += qgg
                qggg[i,:,i] += qgg.transpose(0,2,1,3,4)
                qggg[i,i,:] += qgg.transpose(0,2,3,1,4)
            vp[1:4,1:4,1:4] = qggg

            frgg = frgg.reshape(2,6,ngrids)
            qrgg = _stack_fgg(frgg, axis=1)
            qrgg = cp.einsum('rabcdg,axg->xrbcdg', qrgg, rho[:,1:4])
            qrgg = cp.einsum('xrbcdg,cyg->xyrbdg', qrgg, rho[:,1:4])
            # qrgg = _stack_fgg(frgg.get(), axis=1, rho=rho.get()).transpose(2,4,0,1,3,5)
            qrg = _stack_fg(frg.reshape(2,3,ngrids), axis=1)
            # qrgg = cp.asarray(qrgg)
            qrgg[i3,i3] += qrg
            vp[0,1:4,1:4] = qrgg
            vp[1:4,0,1:4] = qrgg.transpose(0,1,3,2,4,5)
            vp[1:4,1:4,0] = qrgg.transpose(0,1,3,4,2,5)

            frrg = frrg.reshape(3,3,ngrids)
            qrrg = _stack_frr(frrg, axis=0)
            qrrg = _stack_fg(qrrg, axis=2)
            qrrg = cp.einsum('rsabg,axg->rsxbg', qrrg, rho[:,1:4]).transpose(2,0,1,3,4)
            # qrrg = _stack_fg(qrrg.get(), axis=2, rho=rho.get()).transpose(3,0,1,2,4)
            # qrrg = cp.asarray(qrrg)
            vp[0,0,1:4] = qrrg
            vp[0,1:4,0] = qrrg.transpose(0,1,3,2,4)
            vp[1:4,0,0] = qrrg.transpose(0,3,1,2,4)

        if order > 1:
            fggt = fggt.reshape(6,2,ngrids)
            qggt = _stack_fgg(fggt, axis=0)
            qggt = cp.einsum('abcdrg,axg->xbcdrg', qggt, rho[:,1:4])
            qggt = cp.einsum('xbcdrg,cyg->xybdrg', qggt, rho[:,1:4])
            # qggt = _stack_fgg(fggt, axis=0, rho=rho).transpose(1,3,0,2,4,5)
            qgt = _stack_fg(fgt.reshape(3,2,ngrids), axis=0)
            i3 = cp.arange(3)
            qggt[i3,i3] += qgt
            vp[1:4,1:4,4] = qggt
            vp[1:4,4,1:4] = qggt.transpose(0,1,2,4,3,5)
            vp[4,1:4,1:4] = qggt.transpose(0,1,4,2,3,5)

            qgtt = _stack_frr(fgtt.reshape(3,3,ngrids), axis=1)
            qgtt = _stack_fg(qgtt, axis=0)
            qgtt = cp.einsum('abrsg,axg->xbrsg', qgtt, rho[:,1:4])
            # qgtt = _stack_fg(qgtt, axis=0, rho=rho).transpose(1,0,2,3,4)
            vp[1:4,4,4] = qgtt
            vp[4,1:4,4] = qgtt.transpose(0,2,1,3,4)
            vp[4,4,1:4] = qgtt.transpose(0,2,3,1,4)

            frgt = frgt.reshape(2,3,2,ngrids)
            qrgt = _stack_fg(frgt, axis=1)
            qrgt = cp.einsum('rabsg,axg->xrbsg', qrgt, rho[:,1:4])
            # qrgt = _stack_fg(frgt, axis=1, rho=rho).transpose(2,0,1,3,4)
            vp[0,1:4,4] = qrgt
            vp[0,4,1:4] = qrgt.transpose(0,1,3,2,4)
            vp[1:4,0,4] = qrgt.transpose(0,2,1,3,4)
            vp[4,0,1:4] = qrgt.transpose(0,3,1,2,4)
            vp[1:4,4,0] = qrgt.transpose(0,2,3,1,4)
            vp[4,1:4,0] = qrgt.transpose(0,3,2,1,4)

            qrrt = _stack_frr(frrt.reshape(3,2,ngrids), axis=0)
            vp[0,0,4] = qrrt
            vp[0,4,0] = qrrt.transpose(0,2,1,3)
            vp[4,0,0] = qrrt.transpose(2,0,1,3)

            qrtt = _stack_frr(frtt.reshape(2,3,ngrids), axis=1)
            vp[0,4,4] = qrtt
            vp[4,0,4] = qrtt.transpose(1,0,2,3)
            vp[4,4,0] = qrtt.transpose(1,2,0,3)

            vp[4,4,4] = _stack_frrr(fttt, axis=0)

        vp = vp.transpose(3,0,4,1,5,2,6)

    else:
        if order == 0:
            vp = frrr.reshape(nvar, nvar, nvar, ngrids)
        else:
            vp = cp.empty((nvar, nvar, nvar, ngrids))
            vp[0,0,0] = frrr
            i3 = cp.arange(3)
            qggg = 8 * fggg * rho[1:4] * rho[1:4,None] * rho[1:4,None,None]
            qgg = 4 * fgg * rho[1:4]
            for i in range(3):
                qggg[i,i,:] += qgg
                qggg[i,:,i] += qgg
                qggg[:,i,i] += qgg
            vp[1:4,1:4,1:4] = qggg

            qrgg = 4 * frgg * rho[1:4] * rho[1:4,None]
            qrgg[i3,i3] += frg * 2
            vp[0,1:4,1:4] = qrgg
            vp[1:4,0,1:4] = qrgg
            vp[1:4,1:4,0] = qrgg

            qrrg = 2 * frrg * rho[1:4]
            vp[0,0,1:4] = qrrg
            vp[0,1:4,0] = qrrg
            vp[1:4,0,0] = qrrg

        if order > 1:
            qggt = 4 * fggt * rho[1:4] * rho[1:4,None]
            qggt[i3,i3] += fgt * 2
            vp[1:4,1:4,4] = qggt
            vp[1:4,4,1:4] = qggt
            vp[4,1:4,1:4] = qggt

            qgtt = 2 * fgtt * rho[1:4]
            vp[1:4,4,4] = qgtt
            vp[4,1:4,4] = qgtt
            vp[4,4,1:4] = qgtt

            qrgt = 2 * frgt * rho[1:4]
            vp[0,1:4,4] = qrgt
            vp[0,4,1:4] = qrgt
            vp[1:4,0,4] = qrgt
            vp[4,0,1:4] = qrgt
            vp[1:4,4,0] = qrgt
            vp[4,1:4,0] = qrgt

            vp[0,0,4] = frrt
            vp[0,4,0] = frrt
            vp[4,0,0] = frrt
            vp[0,4,4] = frtt
            vp[4,0,4] = frtt
            vp[4,4,0] = frtt
            vp[4,4,4] = fttt
    return vp


def _stack_frrr(frrr, axis=0):
    '''
    frrr [u_u_u, u_u_d, u_d_d, d_d_d]
    -> tensor with shape [2, 2, 2, ...]
    '''
    if frrr.shape[axis] != 4:
        frrr = frrr.reshape(frrr.shape[:axis] + (4, -1) + frrr.shape[axis+1:])
    slices = [slice(None)] * frrr.ndim
    slices[axis] = [[[0, 1], [1, 2]],
                    [[1, 2], [2, 3]]]
    return frrr[tuple(slices)]

def _stack_fggg(fggg, axis=0):
    '''
    fggg [uu_uu_uu, uu_uu_ud, uu_uu_dd, uu_ud_ud, uu_ud_dd, uu_dd_dd, ud_ud_ud, ud_ud_dd, ud_dd_dd, dd_dd_dd]
    -> tensor with shape [2,2, 2,2, 2,2, ...]
    '''
    if fggg.shape[axis] != 10:
        fggg = fggg.reshape(fggg.shape[:axis] + (10, 2) + fggg.shape[axis+1:])
    slices = [slice(None)] * fggg.ndim
    slices[axis] = [[[0, 1, 2], [1, 3, 4], [2, 4, 5]],
                    [[1, 3, 4], [3, 6, 7], [4, 7, 8]],
                    [[2, 4, 5], [4, 7, 8], [5, 8, 9]]]
    fggg = fggg[tuple(slices)]
    fggg = _stack_fg(fggg, axis=axis+2)
    fggg = _stack_fg(fggg, axis=axis+1)
    return _stack_fg(fggg, axis=axis)


def ud2ts(v_ud):
    v_ud = cp.asarray(v_ud)
    order = v_ud.ndim // 2
    if order == 0 and v_ud.shape[0] != 2:
        raise ValueError("No spin axis found in the input array.")

    #:matrix = cp.array([[0.5, 0.5],
    #:                   [0.5, -0.5]])
    if order == 1:
        #:v_ts = cp.einsum('ra,axg->rxg', matrix, v_ud)
        v_ts = cp.empty_like(v_ud)
        cp.add(v_ud[0], v_ud[1], out=v_ts[0])
        cp.subtract(v_ud[0], v_ud[1], out=v_ts[1])
        v_ts *= .5
    elif order == 2:
        #:v_ts = cp.einsum('ra,tb,axbyg->rxtyg', matrix, matrix, v_ud)
        tmp = cp.empty_like(v_ud)
        cp.add(v_ud[0], v_ud[1], out=tmp[0])
        cp.subtract(v_ud[0], v_ud[1], out=tmp[1])
        v_ts = cp.empty_like(v_ud)
        cp.add(tmp[:,:,0], tmp[:,:,1], out=v_ts[:,:,0])
        cp.subtract(tmp[:,:,0], tmp[:,:,1], out=v_ts[:,:,1])
        v_ts *= .25
    elif order == 3:
        #:v_ts = cp.einsum('ra,tb,sc,axbyczg->rxtyszg', matrix, matrix, matrix, v_ud)
        v_ts = cp.empty_like(v_ud)
        tmp = cp.empty_like(v_ud)
        cp.add(v_ud[0], v_ud[1], out=v_ts[0])
        cp.subtract(v_ud[0], v_ud[1], out=v_ts[1])
        cp.add(v_ts[:,:,0], v_ts[:,:,1], out=tmp[:,:,0])
        cp.subtract(v_ts[:,:,0], v_ts[:,:,1], out=tmp[:,:,1])
        cp.add(tmp[:,:,:,:,0], tmp[:,:,:,:,1], out=v_ts[:,:,:,:,0])
        cp.subtract(tmp[:,:,:,:,0], tmp[:,:,:,:,1], out=v_ts[:,:,:,:,1])
        v_ts *= .125
    else:
        raise NotImplementedError(f"Order {order} not implemented.")
    return v_ts

def _stack_fg(fg, axis=0, out=None):
    '''fg [uu, ud, dd] -> [[uu*2, ud], [du, dd*2]]'''
    qg = _stack_frr(fg, axis, out)
    if axis == 0:
        qg[0,0] *= 2
        qg[1,1] *= 2
    elif axis == 1:
        qg[:,0,0] *= 2
        qg[:,1,1] *= 2
    elif axis == 2:
        qg[:,:,0,0] *= 2
        qg[:,:,1,1] *= 2
    else:
        raise NotImplementedError
    return qg

def _stack_frr(frr, axis=0, out=None):
    '''frr [u_u, u_d, d_d] -> [[u_u, u_d], [d_u, d_d]]'''
    assert frr.shape[axis] == 3
    out = ndarray(frr.shape[:axis] + (4,) + frr.shape[axis+1:], buffer=out)
    cp.take(frr, cp.asarray([0, 1, 1, 2]), axis=axis, out=out)
    return out.reshape(frr.shape[:axis] + (2, 2) + frr.shape[axis+1:])

def _stack_fgg(fgg, axis=0, out=None):
    '''
    fgg [uu_uu, uu_ud, uu_dd, ud_ud, ud_dd, dd_dd] ->
    [[uu_uu, ud_ud, ud_dd],
     [ud_uu, ud_ud, ud_dd],
     [dd_uu, dd_ud, dd_dd]] -> tensor with shape [2,2, 2,2, ...]
    '''
    assert fgg.shape[axis] == 6
    tmp = ndarray(fgg.shape[:axis] + (9,) + fgg.shape[axis+1:], buffer=out)
    cp.take(fgg, cp.asarray([0,1,2, 1,3,4, 2,4,5]), axis=axis, out=tmp)
    tmp = tmp.reshape(fgg.shape[:axis] + (3, 3) + fgg.shape[axis+1:])
    tmp = _stack_fg(tmp, axis=axis+1)
    return _stack_fg(tmp, axis=axis, out=out)
