"""The frameworks gpudoctor knows, and every spelling of them it accepts: one table for the CLI, envgen, the solver
and the matrix queries."""

from __future__ import annotations

from enum import Enum


class Framework(str, Enum):
    """A framework by its canonical name (the matrix's and the solver's): ``Framework.TORCH == "torch"``."""

    TORCH = "torch"
    TENSORFLOW = "tensorflow"
    JAX = "jax"

    __str__ = str.__str__  # "torch" in f-strings and str() on every Python (3.12 would print "Framework.TORCH")
    __format__ = str.__format__

    @property
    def label(self) -> str:
        """The name people read: "PyTorch", "TensorFlow", "JAX"."""
        return _LABELS[self]

    @property
    def short(self) -> str:
        """The name the CLI prints and env names use: "torch", "tf", "jax"."""
        return _SHORT[self]

    @property
    def aliases(self) -> tuple[str, ...]:
        """Every spelling ``parse`` accepts for this framework, lower-case."""
        return tuple(alias for alias, fw in _ALIASES.items() if fw is self)

    @classmethod
    def parse(cls, alias: str) -> Framework:
        """"torch" / "pytorch" -> TORCH; "tensorflow" / "tf" -> TENSORFLOW; "jax" -> JAX (any case). ValueError else."""
        try:
            return _ALIASES[alias.strip().lower()]
        except (KeyError, AttributeError):
            raise ValueError(f"unknown framework {alias!r} (torch, tensorflow or jax)") from None

    @classmethod
    def all_aliases(cls) -> tuple[str, ...]:
        """Every accepted spelling, sorted (the CLI's --framework choices)."""
        return tuple(sorted(_ALIASES))


_LABELS = {Framework.TORCH: "PyTorch", Framework.TENSORFLOW: "TensorFlow", Framework.JAX: "JAX"}
_SHORT = {Framework.TORCH: "torch", Framework.TENSORFLOW: "tf", Framework.JAX: "jax"}
_ALIASES = {"torch": Framework.TORCH, "pytorch": Framework.TORCH, "tensorflow": Framework.TENSORFLOW, "tf": Framework.TENSORFLOW,
            "jax": Framework.JAX}
