# Copyright 2023 DeepMind Technologies Limited
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
# ==============================================================================
"""Passive forces."""

import torch

from mujoco_torch._src.math import _CachedConst

_EPS12 = _CachedConst(1e-12)

from mujoco_torch._src import math, scan, support

# pylint: disable=g-importing-member
from mujoco_torch._src.types import Data, DisableBit, JointType, Model

# pylint: enable=g-importing-member


def _inertia_box_fluid_model(
    m: Model,
    inertia: torch.Tensor,
    mass: torch.Tensor,
    root_com: torch.Tensor,
    xipos: torch.Tensor,
    ximat: torch.Tensor,
    cvel: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Fluid forces based on inertia-box approximation."""
    box = inertia.unsqueeze(0).repeat(3, 1)
    _ones = torch.ones((3, 3), dtype=inertia.dtype, device=inertia.device)
    _eye = torch.eye(3, dtype=inertia.dtype, device=inertia.device)
    box = box * (_ones - 2 * _eye)
    box = 6.0 * torch.clamp(torch.sum(box, dim=-1), min=1e-12)
    box = torch.sqrt(box / torch.maximum(mass, _EPS12.get(mass.dtype, mass.device))) * (mass > 0.0)

    # transform to local coordinate frame
    offset = xipos - root_com
    lvel = math.transform_motion(cvel, offset, ximat)
    lwind = (ximat.T * m.opt.wind).sum(-1)
    lvel = lvel.clone()
    lvel[3:] = lvel[3:] + (-lwind)

    # set viscous force and torque
    diam = torch.mean(box, dim=-1)
    lfrc_ang = lvel[:3] * -torch.pi * diam**3 * m.opt.viscosity
    lfrc_vel = lvel[3:] * -3.0 * torch.pi * diam * m.opt.viscosity

    # add lift and drag force and torque
    scale_vel = torch.stack(
        [box[1] * box[2], box[0] * box[2], box[0] * box[1]],
    )
    scale_ang = torch.stack(
        [
            box[0] * (box[1] ** 4 + box[2] ** 4),
            box[1] * (box[0] ** 4 + box[2] ** 4),
            box[2] * (box[0] ** 4 + box[1] ** 4),
        ]
    )
    lfrc_vel = lfrc_vel - 0.5 * m.opt.density * scale_vel * torch.abs(lvel[3:]) * lvel[3:]
    lfrc_ang = lfrc_ang - (1.0 * m.opt.density * scale_ang * torch.abs(lvel[:3]) * lvel[:3] / 64.0)

    # rotate to global orientation: lfrc -> bfrc
    force, torque = (ximat * lfrc_vel).sum(-1), (ximat * lfrc_ang).sum(-1)

    return force, torque


def _spring_damper(m: Model, d: Data) -> torch.Tensor:
    """Applies joint level spring and damping forces."""

    def fn(jnt_typs, stiffness, qpos_spring, qpos):
        qpos_i = 0
        qfrcs = []
        for i in range(len(jnt_typs)):
            jnt_typ = JointType(jnt_typs[i])
            q = qpos[qpos_i : qpos_i + jnt_typ.qpos_width()]
            qs = qpos_spring[qpos_i : qpos_i + jnt_typ.qpos_width()]
            qfrc = torch.zeros(jnt_typ.dof_width(), dtype=qpos.dtype, device=qpos.device)
            if jnt_typ == JointType.FREE:
                trans = -stiffness[i] * (q[:3] - qs[:3])
                rot = -stiffness[i] * math.quat_sub(q[3:7], qs[3:7])
                qfrc = torch.cat([trans, rot])
            elif jnt_typ == JointType.BALL:
                qfrc = -stiffness[i] * math.quat_sub(q, qs)
            elif jnt_typ in (JointType.SLIDE, JointType.HINGE):
                qfrc = -stiffness[i] * (q - qs)
            else:
                raise RuntimeError(f"unrecognized joint type: {jnt_typ}")
            qfrcs.append(qfrc)
            qpos_i = qpos_i + jnt_typ.qpos_width()
        return torch.cat(qfrcs)

    qfrc = torch.zeros(m.nv, dtype=d.qpos.dtype, device=d.qpos.device)

    if not m.opt.disableflags & DisableBit.SPRING:
        qfrc = qfrc + scan.flat(
            m,
            fn,
            "jjqq",
            "v",
            m.jnt_type,
            m.jnt_stiffness,
            m.qpos_spring,
            d.qpos,
        )

    if not m.opt.disableflags & DisableBit.DAMPER:
        qfrc = qfrc - m.dof_damping * d.qvel

    # tendon-level springs
    if m.ntendon and not m.opt.disableflags & DisableBit.SPRING:
        below = m.tendon_lengthspring[:, 0] - d.ten_length
        above = m.tendon_lengthspring[:, 1] - d.ten_length
        frc_spring = torch.where(below > 0, m.tendon_stiffness * below, torch.zeros_like(below))
        frc_spring = torch.where(above < 0, m.tendon_stiffness * above, frc_spring)
    else:
        frc_spring = torch.zeros(max(m.ntendon, 0), dtype=d.qpos.dtype, device=d.qpos.device)

    # tendon-level dampers
    if m.ntendon and not m.opt.disableflags & DisableBit.DAMPER:
        frc_damper = -m.tendon_damping * d.ten_velocity
    else:
        frc_damper = torch.zeros(max(m.ntendon, 0), dtype=d.qpos.dtype, device=d.qpos.device)

    if m.ntendon:
        qfrc = qfrc + d.ten_J.T @ (frc_spring + frc_damper)

    return qfrc


def _gravcomp(m: Model, d: Data) -> torch.Tensor:
    """Applies body-level gravity compensation."""
    force = -m.opt.gravity * (m.body_mass * m.body_gravcomp).unsqueeze(-1)

    apply_f = lambda f, pos, body_id: support.jac(m, d, pos, body_id)[0] @ f
    qfrc = torch.vmap(apply_f)(force, d.xipos, torch.arange(m.nbody, device=d.xipos.device)).sum(dim=0)

    return qfrc


def _fluid(m: Model, d: Data) -> torch.Tensor:
    """Applies body-level viscosity, lift and drag."""
    force, torque = torch.vmap(_inertia_box_fluid_model, (None, 0, 0, 0, 0, 0, 0))(
        m,
        m.body_inertia,
        m.body_mass,
        d.subtree_com[m.body_rootid_t],
        d.xipos,
        d.ximat,
        d.cvel,
    )
    qfrc = torch.vmap(support.apply_ft, (None, None, 0, 0, 0, 0))(
        m, d, force, torque, d.xipos, torch.arange(m.nbody, device=d.xipos.device)
    )

    return torch.sum(qfrc, dim=0)


def passive(m: Model, d: Data) -> Data:
    """Adds all passive forces."""
    if m.opt.disableflags & (DisableBit.SPRING | DisableBit.DAMPER):
        d.update_(
            qfrc_passive=torch.zeros(m.nv, dtype=d.qpos.dtype, device=d.qpos.device),
            qfrc_gravcomp=torch.zeros(m.nv, dtype=d.qpos.dtype, device=d.qpos.device),
        )
        return d

    qfrc_passive = _spring_damper(m, d)

    if m.has_gravcomp and not m.opt.disableflags & DisableBit.GRAVITY:
        qfrc_gravcomp = _gravcomp(m, d)
        qfrc_passive = qfrc_passive + qfrc_gravcomp * (1 - m.jnt_actgravcomp[m.dof_jntid])
    else:
        # No gravcomp: preserve the init value so its stride/layout matches
        # across step calls (a fresh torch.zeros(nv) would get broadcast to
        # stride-0 under vmap, triggering a Dynamo recompile).
        qfrc_gravcomp = d.qfrc_gravcomp

    if m.opt.has_fluid_params:
        qfrc_passive = qfrc_passive + _fluid(m, d)

    d.update_(qfrc_passive=qfrc_passive.contiguous(), qfrc_gravcomp=qfrc_gravcomp.contiguous())
    return d
