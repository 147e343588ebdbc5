"""Solving for a machine: which framework build a target can really run, with the reason for every decision.

``solve`` (the entry: ``solve``, ``target_from_facts``, ``install_commands``); ``_solve_core`` (Target, Choice, NoFit,
the fit rules); the routes ``_solve_torch``, ``_solve_tf``, ``_solve_jax``, ``_solve_rocm``, ``_solve_jetson``;
``driver`` (which driver runs which CUDA). Imports the tables, never the queries (an import-linter contract). This
package imports none of its modules itself: a check that asks only the driver rule or JAX's plugin loads only those.
"""
