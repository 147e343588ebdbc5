"""gpudoctor: diagnose, set up and verify deep-learning GPU machines. Imports nothing heavy."""

__version__ = "0.1.0"
