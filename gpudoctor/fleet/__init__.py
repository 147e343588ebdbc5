"""Many machines: collect one gpudoctor report per node (Slurm's srun, a directory of saved reports or snapshots),
then aggregate them (nodes x sections, findings by id) and find drift (facts that differ between nodes, or from a
golden node). Collectors observe (slurm.py, directory.py); digest, drift and aggregate only judge the data they get.
No agent, transport or scheduler of our own (DESIGN rule 8)."""
