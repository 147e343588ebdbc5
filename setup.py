"""Only here to add the two data folders to the package list; all metadata lives in pyproject.toml."""
from setuptools import find_packages, setup

setup(packages=find_packages(include=["gpudoctor", "gpudoctor.*"]) + ["gpudoctor.matrices", "gpudoctor.templates"])
