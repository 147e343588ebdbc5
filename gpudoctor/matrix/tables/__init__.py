"""Loading: matrices/*.toml read, validated and turned into typed rows, and the validated copy cached on disk.

Imports neither the solver nor the queries (an import-linter contract). One job per module: versions (version
strings), arch (GPU architectures), framework (Framework and its spellings), rows (the release dataclasses), model
(Matrix and its lookups across rows; re-exports the others), reader (typed TOML access), row_readers and loader
(files -> Matrix), cache (the disk copy), lazy_tables (tables unpickled on first use), and one module per table
with its rows and its loader: broken, gpu_specs, jax_table, keras, platform_tables, platforms, rocm, signatures,
wheels, xid."""
