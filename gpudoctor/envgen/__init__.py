"""Environment files from a solver Choice: describe the target machine, render the templates, write them safely.

- ``describe``: a Target from ``--gpu/--driver/--os`` descriptions, and a one-line summary of a Target;
- ``render``: Choice -> file texts (jinja2 templates in ``templates/``; the logic is here, the templates hold data);
- ``writer``: atomic, no-clobber writes (a refused run writes nothing).

The solver itself (matrix -> Choice) lives in ``gpudoctor.matrix.solver``. Nothing here imports a framework, and
jinja2 is imported only when a file is rendered.
"""
