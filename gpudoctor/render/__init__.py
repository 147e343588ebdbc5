"""Renderers turn a Report into a string; they never print. The CLI picks one and prints it."""
