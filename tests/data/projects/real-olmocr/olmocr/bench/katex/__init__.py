from .render import compare_rendered_equations, render_equation
