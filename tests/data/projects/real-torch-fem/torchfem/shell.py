"""Shell formulation

The triangular element is based on:
Krysl, Petr, Robust flat-facet triangular shell finite element, International Journal
for Numerical Methods in Engineering, vol. 123, issue 10, pp. 2399-2423, 2022
https://doi.org/10.1002/nme.6944

The quadrilateral element uses the transverse shear interpolation of:
Dvorkin, Eduardo N. and Bathe, Klaus-Juergen, A continuum mechanics based four-node
shell element for general non-linear analysis, Engineering Computations, vol. 1,
issue 1, pp. 77-88, 1984
https://doi.org/10.1108/eb023562
"""

import warnings
from math import sqrt
from typing import cast

import numpy as np
import pyvista
import torch
from pyvista.plotting import CameraPositionOptions
from torch import Tensor

from .base import FEM, Heat, Mechanics
from .elements import Quad1, Tria1
from .laminate import Laminate
from .materials import Material, MechanicsMaterial
from .plot_utils import arrows, cones, dots, new_plotter, show_plotter
from .utils import stiffness2voigt, stress2voigt


class ShellGeometry(FEM):
    element_types = (Tria1, Quad1)
    """The elements, local frames and plotting shared by the shell models.

    It carries the discretization of a thin-walled structure by flat facets,
    which `Shell` combines with the physics it solves.

    Attributes:
        nodes: Nodal coordinates with shape [n_nod, 3].
        elements: Triangle or quadrilateral connectivity with shape [n_elem, 3]
            or [n_elem, 4].
        material: Vectorized material model (None for a shell with a section).
        thickness: Element thicknesses with shape [n_elem].
        offset: Reference surface position per element with shape [n_elem], as a
            fraction of thickness from the mid-plane.
        orientation: Per-element material reference direction with shape
            [n_elem, 3].
        constraints: Boolean mask of constrained DOFs with shape [n_nod, n_dof].
    """

    def __init__(
        self,
        nodes: Tensor,
        elements: Tensor,
        material: Material | None,
        orientation: Tensor | None = None,
    ):
        """Initialize the shell FEM problem.

        Args:
            nodes: Nodal coordinates with shape [n_nod, 3].
            elements: Triangle or quadrilateral connectivity with shape
                [n_elem, 3] or [n_elem, 4].
            material: Pointwise material model, or None for a shell whose
                section carries the materials.
            orientation: Global reference direction from which material/ply
                angles are measured. It is projected onto each element's surface
                to define the element's local material 0°-axis. Accepts
                a single `(3,)` vector (shared by all elements) or a per-element
                `(n_elem, 3)` tensor. Defaults to the global x-direction.
        """

        super().__init__(nodes, elements, material)

        # Material reference orientation
        if orientation is None:
            orientation = torch.tensor([1.0, 0.0, 0.0])
        orientation = torch.as_tensor(orientation, dtype=self.nodes.dtype)
        if orientation.dim() == 1:
            orientation = orientation.unsqueeze(0).expand(self.n_elem, 3)
        self.orientation = orientation

    def _per_element(self, value: Tensor | float) -> Tensor:
        """A float expanded to every element, a tensor with its graph kept."""
        return torch.ones(self.n_elem) * torch.as_tensor(value)

    @property
    def thickness(self) -> Tensor:
        """Thickness per element, which a float assigns to all elements."""
        return self._thickness

    @thickness.setter
    def thickness(self, value: Tensor | float):
        self._thickness = self._per_element(value)

    @property
    def offset(self) -> Tensor:
        """Reference surface position per element, as a fraction of the thickness
        from the mid-plane, which a float assigns to all elements."""
        return self._offset

    @offset.setter
    def offset(self, value: Tensor | float):
        self._offset = self._per_element(value)

    @property
    def volume_scale(self) -> Tensor:
        return self.thickness

    def integrate_surface_load(self, mask: Tensor, load: float | Tensor) -> Tensor:
        """Consistent nodal loads from a load per unit area, e.g. a pressure.

        A shell element is its own surface, so the loaded surface is made up of the
        elements whose nodes all lie in `mask`.

        Args:
            mask: Boolean nodal mask with shape [n_nod] selecting the surface.
            load: Load per unit area. A float is a pressure acting along the element
                normal, while shape [3] or [n_elem, 3] is a traction in global
                coordinates.

        Returns:
            Nodal loads with shape [n_nod, k], to be added to `forces[:, 0:3]`
            or `heat_flux`.
        """
        conn = self.elements[mask[self.elements].all(dim=1)]
        return self._integrate_facet_load(
            conn, self.etype, torch.as_tensor(load, dtype=self.nodes.dtype)
        )

    def eval_shape_functions(self, xi: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        """Gradient operator at integration points xi."""
        # Local element frame, rotating global coordinates into element ones
        nodes = self.nodes[self.elements, :]
        edge1 = nodes[:, 1] - nodes[:, 0]
        # Mean plane normal (Newell's formula), which averages the warp of a quad
        rel = nodes - nodes.mean(dim=1, keepdim=True)
        area = torch.linalg.cross(rel, rel.roll(-1, dims=1), dim=-1).sum(dim=1)
        normal = torch.nn.functional.normalize(area, dim=-1)
        # Material x-axis: the global reference orientation projected onto the
        # element surface. Fall back to the first edge where the orientation is
        # (nearly) normal to the element and the projection vanishes.
        o = self.orientation
        proj = o - (o * normal).sum(dim=-1, keepdim=True) * normal
        degen = (proj.norm(dim=-1) < 1e-8).unsqueeze(-1)
        dir1 = torch.nn.functional.normalize(torch.where(degen, edge1, proj), dim=-1)
        dir2 = torch.nn.functional.normalize(torch.linalg.cross(normal, dir1), dim=-1)
        self.t = torch.stack([dir1, dir2, normal], dim=1)

        # Compute Jacobian and its determinant
        b = self.etype.B(xi)
        dx = (nodes - nodes[:, 0, None]).transpose(2, 1)
        self.loc_nodes = (self.t[:, 0:2, :] @ dx).transpose(2, 1)
        J = torch.einsum("...iN, ANj -> ...Aij", b, self.loc_nodes)
        detJ = torch.linalg.det(J)
        if torch.any(detJ <= 0.0):
            raise ValueError("Negative Jacobian. Check element numbering.")

        # Compute B
        B = torch.linalg.inv(J) @ b[:, None]

        return self.etype.N(xi), B, detJ

    @torch.no_grad()
    def plot(
        self,
        u: float | Tensor = 0.0,
        node_property: Tensor | dict[str, Tensor] | None = None,
        element_property: Tensor | dict[str, Tensor] | None = None,
        orientations: Tensor | None = None,
        thickness: bool = True,
        mirror: tuple[bool, bool, bool] = (False, False, False),
        show_undeformed: bool = False,
        axes: bool = False,
        bcs: bool = False,
        plotter: pyvista.Plotter | None = None,
        camera: CameraPositionOptions | None = None,
        **kwargs,
    ):
        """Plot the shell mesh with PyVista, optionally with results.

        Args:
            u: Nodal displacements added to the positions, e.g. to plot the
                deformed configuration. Defaults to 0.0 (undeformed).
            node_property: Nodal field, optionally keyed by its color bar
                title, e.g. `{"u": u[:, :3]}`.
            element_property: Element field, keyed like `node_property`.
            orientations: Per-element direction vectors with shape
                [n_elem, k, 3] with k <= 3, e.g. the local frames `self.t`,
                drawn on the unmirrored mesh as red, green, and blue arrows of
                the mean element size.
            thickness: If True, extrudes elements by their thickness.
            mirror: Mirrors the mesh about the (x, y, z) planes, e.g. to
                visualize symmetric halves. Warns if the nodes on a mirrored
                plane are not constrained to enforce that symmetry.
            show_undeformed: If True, draws the undeformed mesh as a grey
                wireframe.
            axes: If True, shows labeled coordinate axes around the mesh.
            bcs: If True, renders boundary conditions on the unmirrored mesh:
                arrows for forces and prescribed displacements, spheres at
                displacement tips, and a cone per constrained DOF. Rotational
                DOFs use doubled heads, the usual convention for moments.
                Constraints enforcing the symmetry of a mirrored plane are
                skipped, since the mirrored copy shows that symmetry already.
            plotter: PyVista plotter. Defaults to None.
            camera: Camera position, either a plane ("xy", "xz", "yz"), "iso",
                or an explicit position, focal point and view up. Defaults to
                None.
            **kwargs: Forwarded to `pyvista.Plotter.add_mesh`.
        """
        pl = new_plotter(plotter)

        # VTK element list
        elements = []
        for element in self.elements.cpu().numpy():
            elements += [len(element), *element]

        # Deformed node positions
        pos = (self.nodes + u).cpu().numpy()

        # Create unstructured mesh
        mesh = pyvista.PolyData(pos.tolist(), elements)

        # A bare field is titled by its argument, a named one by its key
        if isinstance(node_property, Tensor):
            node_property = {"node_property": node_property}
        if isinstance(element_property, Tensor):
            element_property = {"element_property": element_property}

        # Plot node properties
        if node_property:
            for key, val in node_property.items():
                mesh.point_data[key] = val.cpu().numpy()

        # Plot cell properties
        if element_property:
            for key, val in element_property.items():
                mesh.cell_data[key] = val.cpu().numpy()

        # Bottom and top of the section along the element normal
        z = torch.stack([-0.5 - self.offset, 0.5 - self.offset], dim=1)
        surfaces = z * self.thickness[:, None]

        # Plot as solid elements spanning the thickness
        kwargs.setdefault("show_edges", True)
        base_meshes = []
        if thickness:
            # Averaged onto the nodes, so the extrusion stays continuous
            nodal = np.zeros((len(self.nodes), 2))
            count = np.zeros((len(self.nodes), 1))
            for element, surface in zip(
                self.elements.cpu().numpy(), surfaces.cpu().numpy()
            ):
                nodal[element] += surface
                count[element] += 1
            nodal /= count

            # Triangle windings are flipped, as VTK winds the base of a wedge
            # away from its top face.
            normals = np.asarray(mesh.point_normals)
            tria = self.etype is Tria1
            conn = self.elements.cpu().numpy()[:, :: -1 if tria else 1]
            ctype = pyvista.CellType.WEDGE if tria else pyvista.CellType.HEXAHEDRON
            solid = pyvista.UnstructuredGrid(
                {ctype: np.hstack([conn, conn + self.n_nod])},
                np.vstack([pos + nodal[:, :1] * normals, pos + nodal[:, 1:] * normals]),
            )
            solid.cell_data.update(mesh.cell_data)
            for key, val in mesh.point_data.items():
                solid.point_data[key] = np.concatenate([val, val])

            pl.add_mesh(solid, **kwargs)
            base_meshes.append(solid)
        else:
            pl.add_mesh(mesh, **kwargs)
            base_meshes.append(mesh)

        # Plot orientations, lifted onto the top surface of a thick shell so
        # that they do not disappear inside it
        if orientations is not None:
            centers = (self.nodes + u)[self.elements].mean(dim=1).cpu().numpy()
            if thickness:
                z_top = surfaces[:, 1]
                centers = centers + z_top[:, None].cpu().numpy() * np.asarray(
                    mesh.cell_normals
                )
            mag = float(self.char_lengths.mean())
            for j, color in zip(range(orientations.shape[1]), ["red", "green", "blue"]):
                directions = torch.nn.functional.normalize(orientations[:, j], dim=-1)
                pl.add_arrows(
                    centers,
                    directions.cpu().numpy(),
                    mag=mag,
                    color=color,
                    show_scalar_bar=False,
                )

        # Symmetry constraints expected on each mirrored plane: the normal
        # translation and the two in-plane rotations. A temperature needs none.
        symmetry = torch.zeros_like(self.constraints)
        tol = 1e-6 * float(self.char_lengths.mean())
        for axis, mirrored_axis in enumerate(mirror):
            if not mirrored_axis or self.n_dof_per_node == 1:
                continue
            on_plane = self.nodes[:, axis].abs() < tol
            dofs = sorted([axis, 3 + (axis + 1) % 3, 3 + (axis + 2) % 3])
            for dof in dofs:
                symmetry[on_plane, dof] = True
            if not (on_plane.any() and self.constraints[on_plane][:, dofs].all()):
                warnings.warn(
                    f"Mirroring about {'xyz'[axis]} = 0, but its nodes are not "
                    f"constrained in DOFs {dofs} to enforce that symmetry.",
                    stacklevel=2,
                )

        # Mirror meshes across specified planes
        sx_values = [1.0, -1.0] if mirror[0] else [1.0]
        sy_values = [1.0, -1.0] if mirror[1] else [1.0]
        sz_values = [1.0, -1.0] if mirror[2] else [1.0]
        for sx in sx_values:
            for sy in sy_values:
                for sz in sz_values:
                    if sx == 1.0 and sy == 1.0 and sz == 1.0:
                        continue
                    for msh in base_meshes:
                        mirrored = msh.copy()
                        mirrored.points[:, 0] *= sx
                        mirrored.points[:, 1] *= sy
                        mirrored.points[:, 2] *= sz
                        pl.add_mesh(mirrored, **{"opacity": 0.5, **kwargs})

        if show_undeformed:
            undefo = pyvista.PolyData(self.nodes.cpu().numpy(), elements)
            edges = cast(pyvista.DataSet, undefo.extract_all_edges())
            pl.add_mesh(edges, style="wireframe", color="grey")

        if bcs and self.n_dof_per_node != 1:
            points = self.nodes + u
            deformed = isinstance(u, Tensor)
            prescribed = torch.where(self.constraints, self._dirichlet, 0.0)
            size = torch.linalg.norm(
                points.max(dim=0).values - points.min(dim=0).values
            )
            height = 0.5 * float(self.char_lengths.mean())

            # Forces and moments scaled linearly, each normalized on its own
            # because they carry different units
            span = 0.1 * float(size)
            arrows(pl, points, self._neumann[:, :3], span=span)
            arrows(pl, points, self._neumann[:, 3:], span=span, doubled=True)

            # Prescribed translations to scale, with a sphere marking the tip. A
            # prescribed rotation cannot be drawn to scale, so it keeps its cone.
            fixed = self.constraints & ~symmetry
            if not deformed:
                fixed[:, :3] = fixed[:, :3] & (prescribed[:, :3] == 0.0)
                arrows(pl, points, prescribed[:, :3])
            pulled = torch.linalg.norm(prescribed[:, :3], dim=1) > 0.0
            ends = points if deformed else points + prescribed[:, :3]
            dots(pl, ends[pulled], 0.3 * height)
            cones(pl, points, fixed[:, :3], height)
            cones(pl, points, fixed[:, 3:], height, doubled=True)

        show_plotter(pl, plotter, axes, camera)


class Shell(ShellGeometry, Mechanics):
    """Flat-facet shell model for thin-walled structures.

    Triangles follow Krysl, quadrilaterals the MITC4 shear interpolation of Dvorkin
    and Bathe on the mean plane of their four nodes, so warp is neglected. Each node
    carries six degrees of freedom (three translations, three rotations). The section
    is either a homogeneous plane-stress material with a thickness or a layered
    `Laminate`.

    The drilling rotation is penalized towards the rotation of the membrane field
    rather than transformed out as in section 3 of Krysl, so `drill_penalty` remains
    a tuning parameter on a coarse doubly-curved mesh, and a folded or branched
    shell, whose nodes carry no unique normal, is not supported.

    `solve` reports stress in the local material frame of each element, and
    leaves the gradient at the identity, as the formulation never forms one. Its
    default aggregation averages the through-thickness stations, where a bending
    stress cancels: pass `aggregate_integration_points=False` to read one.

    Attributes:
        nodes: Nodal coordinates with shape [n_nod, 3].
        elements: Triangle or quadrilateral connectivity with shape [n_elem, 3]
            or [n_elem, 4].
        section: The `Laminate` integrated through the thickness, a single layer
            for a homogeneous shell. Its materials, angles and thicknesses may be
            reassigned per layer.
        thickness: Element thicknesses with shape [n_elem], the total of the
            section, whose `thicknesses` are set per layer.
        offset: Reference surface position per element with shape [n_elem], as a
            fraction of thickness from the mid-plane.
        orientation: Per-element material reference direction with shape
            [n_elem, 3].
        forces: Applied nodal forces and moments with shape [n_nod, 6].
        displacements: Prescribed nodal displacements and rotations with
            shape [n_nod, 6].
        constraints: Boolean mask of constrained DOFs with shape [n_nod, 6].
    """

    supports_finite_strain = False

    def __init__(
        self,
        nodes: Tensor,
        elements: Tensor,
        material: Material | Laminate,
        thickness: Tensor | float = 1.0,
        offset: Tensor | float = 0.0,
        transverse_nu: float = 0.5,
        transverse_kappa: float = 5.0 / 6.0,
        transverse_G: list[float] | list[Tensor] | None = None,
        drill_penalty: float = 1e-3,
        n_simpson: int = 3,
        orientation: Tensor | None = None,
    ):
        """Initialize the shell FEM problem.

        Args:
            nodes: Nodal coordinates with shape [n_nod, 3].
            elements: Triangle or quadrilateral connectivity with shape
                [n_elem, 3] or [n_elem, 4].
            material: Either a single plane-stress `Material` (homogeneous
                shell) or a `Laminate` describing a layered stacking sequence.
                When a `Laminate` is passed, `thickness` and `n_simpson` are
                taken from the laminate and the corresponding arguments here are
                ignored.
            thickness: Shell thickness. A float is expanded to all elements, a
                tensor assigns one thickness per element.
            offset: Reference surface position within the section, as a
                fraction of thickness from the mid-plane along the element
                normal. `+0.5` puts it on the top face.
            transverse_nu: Poisson's ratio used for the shear relaxation of a
                homogeneous triangle. A quadrilateral needs none.
            transverse_kappa: Shear correction factor, 5/6 for a homogeneous
                section.
            transverse_G: Pair `[G_xz, G_yz]` of effective transverse shear
                moduli, integrated over the thickness. Taken from the material
                or the laminate when omitted.
            drill_penalty: Stiffness tying the drilling degree of freedom to the
                in-plane rotation of the membrane field, as a fraction of the shear
                stiffness of the section.
            n_simpson: Number of Simpson integration points through the
                thickness. Must be an odd integer.
            orientation: Global reference direction from which material/ply
                angles are measured. It is projected onto each element's surface
                to define the element's local material 0°-axis. Accepts
                a single `(3,)` vector (shared by all elements) or a per-element
                `(n_elem, 3)` tensor. Defaults to the global x-direction.
        """

        # The section carries the materials, so the base gets none
        super().__init__(nodes, elements, None, orientation)

        # A plain material is a section of one layer, which checks its kind
        if not isinstance(material, Laminate):
            layer = cast(MechanicsMaterial, material)
            thickness = self._per_element(thickness)
            material = Laminate([layer], [thickness], [0.0], n_simpson)
        if material.finite_strain:
            raise NotImplementedError(
                f"Geometric nonlinearity is not implemented for {type(self).__name__}."
            )
        self.section = material.vectorize(self.n_elem, self._per_element(offset))
        self.n_z = self.section.n_z
        self.n_int = self.n_int * self.n_z

        self.drill_penalty = drill_penalty
        self.transverse_G = transverse_G
        self.transverse_nu = transverse_nu
        self.transverse_kappa = transverse_kappa

    @property
    def thickness(self) -> Tensor:
        """Thickness per element, the total of the section."""
        return self.section.thickness

    @property
    def offset(self) -> Tensor:
        """Reference surface position per element, as a fraction of the thickness
        from the mid-plane. Assigning it moves the section."""
        return self.section.offset

    @offset.setter
    def offset(self, value: Tensor | float):
        self.section.offset = self._per_element(value)

    @property
    def As(self) -> Tensor:
        """Transverse shear stiffness per element, with shape [n_elem, 2, 2]."""
        if self.transverse_G is None:
            return self.section.As
        G = torch.as_tensor(self.transverse_G).expand(self.n_elem, 2)
        return self.thickness[:, None, None] * torch.diag_embed(G)

    @property
    def n_state(self) -> int:
        """Number of internal state variables per through-thickness station."""
        return self.section.n_state

    @property
    def symmetric_tangent(self) -> bool:
        """The tangent symmetry of the section."""
        return self.section.symmetric_tangent

    @property
    def n_dof_per_node(self) -> int:
        """Number of DOFs per node"""
        return 6

    @property
    def n_flux(self) -> list[int]:
        """Shape of the local stress tensor."""
        return [2, 2]

    def _Dm(self, B):
        """Aggregate strain-displacement matrices

        Args:
            B (torch tensor): Derivative of element shape functions (shape: [N x 2 x 3])

        Returns:
            torch tensor: Strain-displacement matrices shaped [N x 3 x 18]
        """
        N = self.n_elem
        z = torch.zeros(N, self.etype.nodes)
        D0 = torch.stack([B[:, 0, :], z, z, z, z, z], dim=-1).reshape(N, -1)
        D1 = torch.stack([z, B[:, 1, :], z, z, z, z], dim=-1).reshape(N, -1)
        D2 = torch.stack([B[:, 1, :], B[:, 0, :], z, z, z, z], dim=-1).reshape(N, -1)
        return torch.stack([D0, D1, D2], dim=1)

    def _Db(self, B):
        """Aggregate curvature-displacement matrices

        Args:
            B (torch tensor): Derivative of element shape functions (shape: [N x 2 x 3])

        Returns:
            torch tensor: Curvature-displacement matrices shaped [N x 3 x 18]
        """
        N = self.n_elem
        z = torch.zeros(N, self.etype.nodes)
        D0 = torch.stack([z, z, z, z, B[:, 0, :], z], dim=-1).reshape(N, -1)
        D1 = torch.stack([z, z, z, -B[:, 1, :], z, z], dim=-1).reshape(N, -1)
        D2 = torch.stack([z, z, z, -B[:, 0, :], B[:, 1, :], z], dim=-1).reshape(N, -1)
        return torch.stack([D0, D1, D2], dim=1)

    def _Dd(self) -> Tensor:
        """Aggregate drill-displacement matrices, one row per element node.

        Returns:
            torch tensor: Drill-displacement matrices shaped
                [nodes x n_elem x 6*nodes]
        """
        n_nod = self.etype.nodes
        b = self.etype.B(self.etype.iso_coords.to(self.loc_nodes))
        J = torch.einsum("...iN, ANj -> ...Aij", b, self.loc_nodes)
        B = torch.linalg.inv(J) @ b[:, None]
        zero = torch.zeros(n_nod, self.n_elem, n_nod)
        drill = torch.eye(n_nod)[:, None, :].expand_as(zero)
        cols = [B[..., 1, :] / 2.0, -B[..., 0, :] / 2.0, zero, zero, zero, drill]
        return torch.stack(cols, dim=-1).reshape(n_nod, self.n_elem, -1)

    def _Ds(self, detJ: Tensor) -> Tensor:
        """Aggregate shear-displacement matrices.

        A triangle averages the operator of Krysl over the three node orderings,
        while a quadrilateral ties its covariant shear strains to the midpoints of
        the edges (MITC4).

        Args:
            detJ (torch tensor): Jacobian determinants (shape: [n_ip x N])

        Returns:
            torch tensor: Shear-displacement matrices shaped
                [n_ip x N x 2 x 6*nodes]
        """
        if self.etype is Quad1:
            xi = self.etype.ipoints.to(self.loc_nodes)
            # Tying points at the midpoints of the edges 0-1, 1-2, 2-3 and 3-0
            mid = [[0.0, -1.0], [1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]]
            tie = torch.tensor(mid).to(xi)
            b = self.etype.B(tie)
            J = torch.einsum("...iN, ANj -> ...Aij", b, self.loc_nodes)

            # Covariant shear g_a = w_,a + N (x_,a th_y - y_,a th_x)
            dw = b[:, None].expand(-1, self.n_elem, -1, -1)
            shape = self.etype.N(tie)[:, None, None, :]
            dx, dy = J[..., 0:1], J[..., 1:2]
            zero = torch.zeros_like(dw)
            cols = [zero, zero, dw, -shape * dy, shape * dx, zero]
            g = torch.stack(cols, dim=-1).reshape(len(tie), self.n_elem, 2, -1)

            # Interpolate between the tying points and pull back to the element frame
            r, s = xi[:, 0, None, None], xi[:, 1, None, None]
            g_xi = 0.5 * ((1.0 - s) * g[0, :, 0] + (1.0 + s) * g[2, :, 0])
            g_eta = 0.5 * ((1.0 - r) * g[3, :, 1] + (1.0 + r) * g[1, :, 1])
            b_ip = self.etype.B(xi)
            J_ip = torch.einsum("...iN, ANj -> ...Aij", b_ip, self.loc_nodes)
            return torch.linalg.inv(J_ip) @ torch.stack([g_xi, g_eta], dim=2)
        else:
            # A triangle has a constant Jacobian, so one operator serves every point
            N = self.n_elem
            A = detJ[0] / 2.0
            z = torch.zeros(N)

            def compute(nodes):
                a = nodes[:, 1, 0] - nodes[:, 0, 0]
                b = nodes[:, 1, 1] - nodes[:, 0, 1]
                c = nodes[:, 2, 0] - nodes[:, 0, 0]
                d = nodes[:, 2, 1] - nodes[:, 0, 1]
                D0 = torch.stack(
                    [
                        torch.stack([z, z, b - d, z, A, z], dim=-1),
                        torch.stack([z, z, c - a, -A, z, z], dim=-1),
                    ],
                    dim=1,
                ) / (2.0 * A[:, None, None])
                D1 = torch.stack(
                    [
                        torch.stack([z, z, d, -b * d / 2.0, a * d / 2.0, z], dim=-1),
                        torch.stack([z, z, -c, b * c / 2.0, -a * c / 2.0, z], dim=-1),
                    ],
                    dim=1,
                ) / (2.0 * A[:, None, None])
                D2 = torch.stack(
                    [
                        torch.stack([z, z, -b, b * d / 2.0, -b * c / 2.0, z], dim=-1),
                        torch.stack([z, z, a, -a * d / 2.0, a * c / 2.0, z], dim=-1),
                    ],
                    dim=1,
                ) / (2.0 * A[:, None, None])
                return D0, D1, D2

            D0_012, D1_012, D2_012 = compute(self.loc_nodes[:, [0, 1, 2], :])
            D1_120, D2_120, D0_120 = compute(self.loc_nodes[:, [1, 2, 0], :])
            D2_201, D0_201, D1_201 = compute(self.loc_nodes[:, [2, 0, 1], :])
            D0 = (D0_012 + D0_120 + D0_201) / 3.0
            D1 = (D1_012 + D1_120 + D1_201) / 3.0
            D2 = (D2_012 + D2_120 + D2_201) / 3.0
            return torch.cat([D0, D1, D2], dim=-1).unsqueeze(0)

    def _shear_correction(self, detJ: Tensor) -> Tensor:
        """Shear correction factor scaling the shear stiffness of the section.

        A triangle reduces it by the relaxation of Krysl to avoid locking, with `h`
        the element edge length, which the MITC4 tying of a quadrilateral does not
        need.

        Args:
            detJ (torch tensor): Jacobian determinants (shape: [n_ip x N])

        Returns:
            torch tensor: Shear correction factors shaped [n_ip x N]
        """
        if self.etype is Quad1:
            return torch.full_like(detJ, self.transverse_kappa)
        else:
            h = sqrt(2) * torch.sqrt(detJ / 2.0)
            alpha = self.transverse_kappa / (2 * (1 + self.transverse_nu))
            t2 = self.thickness**2
            return self.transverse_kappa * t2 / (t2 + alpha * h**2)

    def eval_shape_functions(self, xi: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        """Gradient operator at `xi`, with the frame expanded to the nodal DOFs."""
        N, B, detJ = super().eval_shape_functions(xi)
        # Transformation x = T X with element coords x and global coords X
        triples = self.etype.nodes * self.n_dof_per_node // 3
        self.T = torch.func.vmap(torch.block_diag)(*(triples * [self.t]))
        return N, B, detJ

    def compute_k(self, detJ: Tensor, BCB: Tensor) -> Tensor:
        return BCB.mul_(detJ[:, None, None])

    def compute_f(self, detJ: Tensor, B: Tensor, S: Tensor):
        raise NotImplementedError

    def integrate_mass(self) -> Tensor:
        """Mass matrix (translational: ∫ρ dz, rotational: ∫ρz² dz)."""
        n = self.n_dof_per_node * self.etype.nodes
        m = torch.zeros((self.n_elem, n, n))
        rho_trans, rho_rot = self.section.rho_h, self.section.rho_zz
        D = torch.diag_embed(torch.stack([rho_trans] * 3 + [rho_rot] * 3, dim=-1))
        N, _, detJ = self.eval_shape_functions(self.etype.ipoints)
        for i, w in enumerate(self.etype.iweights):
            m_loc = w * torch.einsum(
                "ENM,Eij->ENiMj", torch.einsum("N,M,E->ENM", N[i], N[i], detJ[i]), D
            )
            m_loc = m_loc.reshape(self.n_elem, n, n)
            m += self.T.transpose(1, 2) @ m_loc @ self.T
        return m

    def integrate_material(
        self,
        u_prev: Tensor,
        grad_prev: Tensor,
        flux_prev: Tensor,
        state_prev: Tensor,
        du: Tensor,
        de0: Tensor,
        iter: int,
        compute_stiffness: bool = True,
    ) -> tuple[Tensor | None, Tensor, Tensor, Tensor, Tensor]:
        """Perform numerical integrations for element stiffness matrix.

        Args:
            grad_prev: Deformation gradient at previous step [n_int, n_elem, *n_flux]
            flux_prev: Stress at previous step [n_int, n_elem, *n_flux]
            state_prev: Material state at previous step [n_int, n_elem, n_state]
            compute_stiffness: If True, assemble and return element stiffness.

        Returns:
            k, f, grad_new, flux_new, state_new
        """

        # Initialize output for new state
        grad_new = torch.zeros_like(grad_prev)
        flux_new = torch.zeros_like(flux_prev)
        state_new = torch.zeros_like(state_prev)

        # Compute updated configuration
        u_trial = u_prev + du.view((-1, self.n_dof_per_node))

        # Reshape displacement increment and rotation increment
        du = du.view(-1, self.n_dof_per_node)[self.elements]
        d_u = du[..., :3]
        d_w = du[..., 3:]

        # Initialize nodal force and stiffness
        N_nod = self.etype.nodes
        n_dof = self.n_dof_per_node * N_nod
        f = torch.zeros(self.n_elem, n_dof)
        need_k = compute_stiffness and (self.K.numel() == 0 or self.n_state != 0)
        k = torch.zeros(self.n_elem, n_dof, n_dof) if need_k else None

        # Compute gradient operators
        _, B, detJ = self.eval_shape_functions(self.etype.ipoints)

        # Through-thickness integration stations of the section
        section = self.section
        materials, z_stations, w_stations = (
            section.materials_per_station,
            section.z,
            section.w,
        )

        # Transverse shear operators and stiffnesses at the integration points
        Ds = self._Ds(detJ)
        int_Cs = self._shear_correction(detJ)[..., None, None] * self.As

        # Drilling operator and the section shear stiffness the penalty scales
        Dd = self._Dd()
        DdDd = torch.einsum("aEi,aEj->Eij", Dd, Dd) / N_nod
        shear = self.As.diagonal(dim1=-2, dim2=-1).mean(-1)

        for i, wi in enumerate(self.etype.iweights):
            # Transform displacement increment to local element coordinates
            du_local = torch.einsum("...ij,...kj->...ki", self.t, d_u)
            dw_local = torch.einsum("...ij,...kj->...ki", self.t, d_w)

            # Initialize local force contributions
            f_loc = torch.zeros(self.n_elem, *self.n_flux)
            m_loc = torch.zeros(self.n_elem, *self.n_flux)

            # Initialize ABD matrices
            A_matrix = torch.zeros((self.n_elem, 3, 3))
            B_matrix = torch.zeros((self.n_elem, 3, 3))
            D_matrix = torch.zeros((self.n_elem, 3, 3))

            # Thickness integration of membrane and bending stresses
            for j, material in enumerate(materials):
                # Compute integration point index
                ip = i * self.n_z + j

                # Absolute through-thickness position and integration weight
                z = z_stations[j][:, None, None]
                wz = w_stations[j][:, None, None]

                # Compute gradient of displacement increment and rotation increment
                dudxi = B[i] @ du_local
                dwdxi = B[i] @ dw_local

                # Compute curvature
                dkappa = torch.stack(
                    [
                        torch.stack([dwdxi[..., 0, 1], -dwdxi[..., 0, 0]], dim=-1),
                        torch.stack([dwdxi[..., 1, 1], -dwdxi[..., 1, 0]], dim=-1),
                    ],
                    dim=-1,
                )

                # Compute in-plane displacement gradient increment
                H_inc = dudxi[..., 0:2] + z * dkappa
                grad_new[ip] = grad_prev[ip] + H_inc

                # Evaluate material response
                flux_new[ip], state_new[ip], ddsdde = material.step(
                    H_inc,
                    grad_prev[ip],
                    flux_prev[ip],
                    state_prev[ip],
                    de0,
                    self.char_lengths,
                    iter,
                )

                # Thickness integration of membrane forces and bending moments.
                f_loc += wz * flux_new[ip].clone()
                m_loc += wz * z * flux_new[ip].clone()

                # Compute ABD matrix contributions
                C = stiffness2voigt(ddsdde)
                A_matrix += C * wz
                B_matrix += C * wz * z
                D_matrix += C * wz * z**2

            # Element membrane stiffness
            Dm = self._Dm(B[i])
            DmCDm = torch.einsum("...ji,...jk,...kl->...il", Dm, A_matrix, Dm)
            km = wi * self.compute_k(detJ[i], DmCDm)

            # Element bending stiffness
            Db = self._Db(B[i])
            DbCDb = torch.einsum("...ji,...jk,...kl->...il", Db, D_matrix, Db)
            kb = wi * self.compute_k(detJ[i], DbCDb)

            # Element membrane-bending coupling stiffness.
            DmCDb = torch.einsum("...ji,...jk,...kl->...il", Dm, B_matrix, Db)
            DbCDm = torch.einsum("...ji,...jk,...kl->...il", Db, B_matrix, Dm)
            kc = wi * self.compute_k(detJ[i], DmCDb + DbCDm)

            # Element transverse stiffness
            DsCsDs = torch.einsum("...ji,...jk,...kl->...il", Ds[i], int_Cs[i], Ds[i])
            ks = wi * self.compute_k(detJ[i], DsCsDs)

            # Element drilling stiffness, a fraction of the section shear stiffness
            kd = (self.drill_penalty * wi * detJ[i] * shear)[:, None, None] * DdDd

            if k is not None:
                # Total element stiffness in local coordinates
                kt = km + kb + kc + ks + kd

                # Total element stiffness in global coordinates
                k[:, :, :] += self.T.transpose(1, 2) @ kt @ self.T

            # Total force contribution
            disp = u_trial[self.elements, :].reshape(self.n_elem, -1)
            loc_disp = torch.einsum("...ij,...j->...i", self.T, disp)
            n_loc = stress2voigt(f_loc)
            m_loc_voigt = stress2voigt(m_loc)
            f_membrane = wi * torch.einsum("...,...ji,...j->...i", detJ[i], Dm, n_loc)
            f_bending = wi * torch.einsum(
                "...,...ji,...j->...i", detJ[i], Db, m_loc_voigt
            )
            f_shear_drill = torch.einsum("...ij,...j->...i", ks + kd, loc_disp)
            f_loc_total = f_membrane + f_bending + f_shear_drill
            f[:, :] += torch.einsum(
                "...ij,...j->...i", self.T.transpose(1, 2), f_loc_total
            )

        return k, f, grad_new, flux_new, state_new


class ShellHeat(ShellGeometry, Heat):
    """Heat conduction model for thin-walled structures.

    Uses the same flat facets, local frames and plotting as `Shell`, with one
    temperature per node, so the section conducts in-plane only.

    `solve` reports flux and gradient in the local material frame, as `Shell`
    reports its stress.

    Attributes:
        nodes: Nodal coordinates with shape [n_nod, 3].
        elements: Triangle or quadrilateral connectivity with shape [n_elem, 3]
            or [n_elem, 4].
        material: Vectorized plane thermal material.
        thickness: Element thicknesses with shape [n_elem].
        orientation: Per-element material reference direction with shape
            [n_elem, 3].
        heat_flux: Applied nodal heat sources with shape [n_nod, 1].
        temperatures: Prescribed nodal temperatures with shape [n_nod, 1].
        constraints: Boolean mask of constrained DOFs with shape [n_nod, 1].
    """

    def __init__(
        self,
        nodes: Tensor,
        elements: Tensor,
        material: Material,
        thickness: Tensor | float = 1.0,
        offset: Tensor | float = 0.0,
        orientation: Tensor | None = None,
    ):
        """As `ShellGeometry`, with a `thickness` and an `offset` of the reference
        surface that a float expands to all elements and a tensor assigns per
        element."""
        super().__init__(nodes, elements, material, orientation)
        self.thickness = thickness
        self.offset = offset

    @property
    def n_flux(self) -> list[int]:
        """Shape of the local heat flux tensor."""
        return [1, 2]
