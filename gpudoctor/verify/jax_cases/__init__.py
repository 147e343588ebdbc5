"""The JAX smoke tests (plain jax: jax.numpy, lax, jit and grad, no flax or optax). Imported only by the worker."""
